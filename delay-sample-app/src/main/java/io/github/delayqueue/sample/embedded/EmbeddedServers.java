package io.github.delayqueue.sample.embedded;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;

/** The embedded servers one application started; stops them once, newest first. */
final class EmbeddedServers {

    private final List<AutoCloseable> servers;

    private final Log log;

    EmbeddedServers(List<AutoCloseable> servers, Log log) {
        this.servers = new ArrayList<>(servers);
        this.log = log;
    }

    /**
     * Makes the servers the context's first disposable bean. Disposable beans are destroyed in reverse order of
     * registration, so the servers stop after the queue, the connection pool and the Redis client have shut down.
     */
    void stopAfterClose(ConfigurableListableBeanFactory beanFactory) {
        if (beanFactory instanceof DefaultSingletonBeanRegistry registry) {
            registry.registerDisposableBean("embeddedServers", this::close);
        }
    }

    synchronized void close() {
        for (int i = servers.size() - 1; i >= 0; i--) {
            try {
                servers.get(i).close();
            }
            catch (Exception ex) {
                log.warn("Could not stop an embedded server cleanly", ex);
            }
        }
        servers.clear();
    }
}
