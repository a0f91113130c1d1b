package dev.outbox4j.spi;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.security.KeyManagementException;
import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * An initialised client context whose sockets and engines always ask for endpoint identification ({@code HTTPS}
 * rules: the certificate must name the host connected to). Some broker clients (jnats, amqp-client unless told) open
 * TLS sockets without it, so a certificate for any host the trusted authority signed would do; wrapping the context
 * makes hostname verification the default whatever the client does.
 *
 * <p>Thread-safe, like the context it wraps.
 */
final class HostnameCheckingContext extends SSLContext {

  HostnameCheckingContext(SSLContext delegate) {
    super(new Spi(delegate), delegate.getProvider(), delegate.getProtocol());
  }

  private static <T extends SSLSocket> T identify(T socket) {
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    socket.setSSLParameters(parameters);
    return socket;
  }

  private static Socket identify(Socket socket) {
    return socket instanceof SSLSocket ssl ? identify(ssl) : socket;
  }

  private static SSLEngine identify(SSLEngine engine) {
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    engine.setSSLParameters(parameters);
    return engine;
  }

  private static final class Spi extends SSLContextSpi {
    private final SSLContext delegate;

    Spi(SSLContext delegate) {
      this.delegate = delegate;
    }

    @Override
    protected void engineInit(KeyManager[] keyManagers, TrustManager[] trustManagers, SecureRandom random)
        throws KeyManagementException {
      throw new KeyManagementException("already initialised");
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
      return new Sockets(delegate.getSocketFactory());
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
      return delegate.getServerSocketFactory();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
      return identify(delegate.createSSLEngine());
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
      return identify(delegate.createSSLEngine(host, port));
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
      return delegate.getServerSessionContext();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
      return delegate.getClientSessionContext();
    }

    @Override
    protected SSLParameters engineGetDefaultSSLParameters() {
      SSLParameters parameters = delegate.getDefaultSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      return parameters;
    }

    @Override
    protected SSLParameters engineGetSupportedSSLParameters() {
      return delegate.getSupportedSSLParameters();
    }
  }

  private static final class Sockets extends SSLSocketFactory {
    private final SSLSocketFactory delegate;

    Sockets(SSLSocketFactory delegate) {
      this.delegate = delegate;
    }

    @Override
    public String[] getDefaultCipherSuites() {
      return delegate.getDefaultCipherSuites();
    }

    @Override
    public String[] getSupportedCipherSuites() {
      return delegate.getSupportedCipherSuites();
    }

    @Override
    public Socket createSocket() throws IOException {
      return identify(delegate.createSocket());
    }

    @Override
    public Socket createSocket(Socket socket, String host, int port, boolean autoClose) throws IOException {
      return identify(delegate.createSocket(socket, host, port, autoClose));
    }

    @Override
    public Socket createSocket(Socket socket, InputStream consumed, boolean autoClose) throws IOException {
      return identify(delegate.createSocket(socket, consumed, autoClose));
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      return identify(delegate.createSocket(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
      return identify(delegate.createSocket(host, port, localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      return identify(delegate.createSocket(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
        throws IOException {
      return identify(delegate.createSocket(address, port, localAddress, localPort));
    }
  }
}
