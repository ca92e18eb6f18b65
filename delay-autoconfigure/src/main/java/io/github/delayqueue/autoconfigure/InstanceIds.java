package io.github.delayqueue.autoconfigure;

import java.net.InetAddress;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/** The default instance id: host, process and a random suffix, so two contexts in one JVM never share one. */
final class InstanceIds {

    private InstanceIds() {
    }

    static String resolve(@Nullable String configured) {
        if (configured != null) {
            return configured;
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        }
        catch (Exception ex) {
            host = "unknown-host";
        }
        String id = host + ":" + ProcessHandle.current().pid() + ":" + UUID.randomUUID().toString().substring(0, 8);
        return id.length() <= 128 ? id : id.substring(id.length() - 128);
    }

}
