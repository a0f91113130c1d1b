package dev.outbox4j.quarkus.deployment;

import dev.outbox4j.quarkus.OutboxEvent;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.AnnotationValue;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.Type;

/**
 * The {@link OutboxEvent} types of an application, found in its Jandex index at build time: each annotated class, its
 * known subclasses and, for an annotated interface, its known implementors. Each concrete type's ordering-key property
 * is checked as the run-time writer will look it up (the nearest annotation, searched on the type, then its
 * superclasses and interfaces breadth-first; then an accessor {@code x()} or {@code getX()}, or a field, on the type or
 * a superclass), so a misspelt name fails the build instead of the first {@code fire(...)}. A type whose superclasses
 * leave the index is not judged: the writer checks it at run time.
 */
final class OutboxEventTypes {
  private static final DotName OUTBOX_EVENT = DotName.createSimple(OutboxEvent.class);
  /** Where a hierarchy ends: these hold no event property. */
  private static final Set<DotName> ROOTS = Set.of(DotName.createSimple(Object.class),
      DotName.createSimple(Record.class));

  private OutboxEventTypes() {}

  /**
   * @param index the application's combined index
   * @return the names of the marked types (annotated, inheriting or implementing), for reflection
   * @throws IllegalStateException naming the type and the property when an ordering key matches no member
   */
  static List<String> find(IndexView index) {
    Set<ClassInfo> types = new LinkedHashSet<>();
    for (AnnotationInstance marked : index.getAnnotations(OUTBOX_EVENT)) {
      if (marked.target().kind() == AnnotationTarget.Kind.CLASS) {
        ClassInfo annotated = marked.target().asClass();
        types.add(annotated);
        types.addAll(annotated.isInterface()
            ? index.getAllKnownImplementors(annotated.name()) : index.getAllKnownSubclasses(annotated.name()));
      }
    }
    for (ClassInfo type : types) {
      if (!type.isInterface() && !Modifier.isAbstract(type.flags())) {
        AnnotationValue key = nearestMarking(index, type).value("orderingKey");
        if (key != null && !key.asString().isEmpty()) {
          checkProperty(index, type, key.asString());
        }
      }
    }
    return types.stream().map(type -> type.name().toString()).toList();
  }

  /** @return the annotation the writer applies: the type's own, else the first found breadth-first above it */
  private static AnnotationInstance nearestMarking(IndexView index, ClassInfo type) {
    Deque<ClassInfo> candidates = new ArrayDeque<>(List.of(type));
    Set<DotName> seen = new HashSet<>();
    while (!candidates.isEmpty()) {
      ClassInfo candidate = candidates.poll();
      if (!seen.add(candidate.name())) {
        continue;
      }
      AnnotationInstance own = candidate.declaredAnnotation(OUTBOX_EVENT);
      if (own != null) {
        return own;
      }
      add(index, candidate.superName(), candidates);
      candidate.interfaceNames().forEach(name -> add(index, name, candidates));
    }
    throw new IllegalStateException("no @OutboxEvent above " + type.name()); // found above it, so unreachable
  }

  private static void add(IndexView index, DotName name, Deque<ClassInfo> candidates) {
    ClassInfo found = name == null ? null : index.getClassByName(name);
    if (found != null) {
      candidates.add(found);
    }
  }

  private static void checkProperty(IndexView index, ClassInfo type, String property) {
    String getter = "get" + property.substring(0, 1).toUpperCase(Locale.ROOT) + property.substring(1);
    for (ClassInfo level = type; level != null; ) {
      if (readable(level.method(property)) || readable(level.method(getter)) || level.field(property) != null) {
        return;
      }
      DotName next = level.superName();
      if (next == null || ROOTS.contains(next)) {
        throw new IllegalStateException("@OutboxEvent on " + type.name() + " names the ordering key property '"
            + property + "', which is neither a record component, an accessor " + property + "() or " + getter
            + "(), nor a field");
      }
      level = index.getClassByName(next); // null: a superclass outside the index; the run-time writer decides
    }
  }

  private static boolean readable(MethodInfo method) {
    return method != null && method.returnType().kind() != Type.Kind.VOID;
  }
}
