package io.github.delayqueue.runtime;

import java.net.InetAddress;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * The owner this process writes on the tasks it claims: the configured {@code delay.instance-id} (or host and
 * process id) plus a random suffix, so two processes never share one, even when they are configured with the same
 * id (a Deployment name, {@code spring.application.name}) or one restarts in place under a stable name. Adopting the
 * claims of a lost claim answer goes by owner, so it must name one process.
 */
final class InstanceIds {

    /** The owner column's length. */
    static final int MAX_LENGTH = 128;

    static final int SUFFIX_LENGTH = 9; // ':' and 8 hex digits

    private InstanceIds() {
    }

    static String resolve(@Nullable String configured) {
        String name = configured != null ? configured : host() + ":" + ProcessHandle.current().pid();
        if (name.length() > MAX_LENGTH - SUFFIX_LENGTH) {
            name = name.substring(name.length() - (MAX_LENGTH - SUFFIX_LENGTH));
        }
        return name + ":" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (Exception ex) {
            return "unknown-host";
        }
    }
}
