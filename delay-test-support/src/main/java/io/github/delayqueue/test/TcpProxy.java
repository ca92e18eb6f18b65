package io.github.delayqueue.test;

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
 * refuses new ones (the service is "down"); {@link #restore()} accepts again on the same port. Nothing but bytes
 * passes through it, so the client talks to the real server.
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;

    private final int targetPort;

    private final int port;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private volatile ServerSocket listener;

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

    /** Drops the current connections but keeps accepting new ones: a server-side kill of every session. */
    public void dropConnections() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    @Override
    public void close() {
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
                    pump(client, upstream);
                    pump(upstream, client);
                }
                catch (IOException ex) {
                    // listener closed by cut(), or the target refused: the client sees a closed connection
                }
            }
        }, "tcp-proxy-" + port);
        thread.setDaemon(true);
        thread.start();
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
            catch (IOException ex) {
                // one side went away
            }
            finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-proxy-pump");
        thread.setDaemon(true);
        thread.start();
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
