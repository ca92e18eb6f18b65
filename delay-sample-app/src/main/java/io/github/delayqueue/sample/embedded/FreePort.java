package io.github.delayqueue.sample.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** A loopback port nobody listens on right now; the embedded servers never take the default ports. */
final class FreePort {

    private FreePort() {
    }

    static int find() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("No free loopback port for an embedded server", ex);
        }
    }
}
