package io.github.delayqueue.testservices;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP proxy in front of a real service, for fault tests: {@link #cut()} drops every connection and
 * refuses new ones (the service is "down"); {@link #restore()} accepts again on the same port; {@link #freeze()}
 * keeps the connections open but holds every byte until {@link #thaw()} (a stalled server, or a network that drops
 * packets without a reset). Nothing but bytes passes through it, so the client talks to the real server.
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;

    private final int targetPort;

    private final int port;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private volatile ServerSocket listener;

    private final Object gate = new Object();

    private final Set<Link> links = ConcurrentHashMap.newKeySet();

    private boolean frozen;

    public TcpProxy(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = bind(0);
        this.port = listener.getLocalPort();
        acceptLoop(listener);
    }

    /** The local port clients connect to. */
    public int port() {
        return port;
    }

    /** Drops every connection and refuses new ones until {@link #restore()}. */
    public synchronized void cut() {
        closeQuietly(listener);
        listener = null;
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    /** Accepts connections again, on the same port. */
    public synchronized void restore() {
        if (listener == null) {
            listener = bind(port);
            acceptLoop(listener);
        }
    }

    /** Holds every byte in both directions, on every connection, until {@link #thaw()}. */
    public void freeze() {
        synchronized (gate) {
            frozen = true;
        }
    }

    /** Lets the bytes held since {@link #freeze()} through, late. */
    public void thaw() {
        synchronized (gate) {
            frozen = false;
            gate.notifyAll();
        }
    }

    private void passGate() throws InterruptedException {
        synchronized (gate) {
            while (frozen) {
                gate.wait();
            }
        }
    }

    /**
     * Turns every current connection into a half-open one, as a network partition or a failover without a reset
     * does: the server side is closed, while the client side stays open and hears nothing, ever. New connections
     * work normally.
     */
    public void blackhole() {
        for (Link link : links) {
            link.blackholed = true;
            closeQuietly(link.upstream);
        }
        links.clear();
    }

    /** Drops the current connections but keeps accepting new ones: a server-side kill of every session. */
    public void dropConnections() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    @Override
    public void close() {
        thaw();
        cut();
    }

    private static ServerSocket bind(int port) {
        try {
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return server;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot listen on loopback port " + port, ex);
        }
    }

    private void acceptLoop(ServerSocket server) {
        Thread thread = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    Socket upstream = new Socket(targetHost, targetPort);
                    client.setTcpNoDelay(true);
                    upstream.setTcpNoDelay(true);
                    synchronized (this) {
                        if (listener != server) {
                            // cut() ran while this connection was being made: it must not survive the cut
                            closeQuietly(client);
                            closeQuietly(upstream);
                            continue;
                        }
                        sockets.add(client);
                        sockets.add(upstream);
                    }
                    Link link = new Link(client, upstream);
                    links.add(link);
                    pump(link, client, upstream);
                    pump(link, upstream, client);
                }
                catch (IOException ex) {
                    // listener closed by cut(), or the target refused: the client sees a closed connection
                }
            }
        }, "tcp-proxy-" + port);
        thread.setDaemon(true);
        thread.start();
    }

    private void pump(Link link, Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                // the streams are not closed on their own: closing a socket's stream closes the socket, and a
                // black-holed link must keep its client side open
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    passGate();
                    if (link.blackholed) {
                        continue; // swallowed, as a partitioned network does
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
            catch (IOException ex) {
                // one side went away
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            finally {
                if (!link.blackholed) {
                    closeQuietly(from);
                    closeQuietly(to);
                    sockets.remove(from);
                    sockets.remove(to);
                    links.remove(link);
                }
            }
        }, "tcp-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /** One proxied connection: the client's socket and the one to the server. */
    private static final class Link {

        final Socket client;

        final Socket upstream;

        volatile boolean blackholed;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        }
        catch (Exception ex) {
            // already gone
        }
    }
}
