package dev.outbox4j.bench;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** Reads back the charts' SVG documents in tests: parsed as XML, elements found by their class. */
final class SvgDocuments {
  private SvgDocuments() {}

  static Document parse(String svg) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
  }

  static List<Element> byClass(Document svg, String tag, String cssClass) {
    NodeList nodes = svg.getElementsByTagName(tag);
    List<Element> found = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      Element element = (Element) nodes.item(i);
      if (element.getAttribute("class").equals(cssClass)) {
        found.add(element);
      }
    }
    return found;
  }

  static List<String> texts(Document svg, String cssClass) {
    return byClass(svg, "text", cssClass).stream().map(Element::getTextContent).toList();
  }

  static double number(Element element, String attribute) {
    return Double.parseDouble(element.getAttribute(attribute));
  }
}
