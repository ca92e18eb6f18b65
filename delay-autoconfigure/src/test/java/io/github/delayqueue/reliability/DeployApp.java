package io.github.delayqueue.reliability;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.it.JournalingHandlers;
import io.github.delayqueue.runtime.DelayQueueRuntime;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * An application whose handler set is chosen by properties, so that a test can run versions of one application, or
 * several applications, side by side on one task table: {@code deploy.a=true} serves {@code deploy.a},
 * {@code deploy.b=true} serves {@code deploy.b}, {@code deploy.new=true} serves {@code deploy.new} (the type a newer
 * version adds), and {@code deploy.hol=true} serves {@code hol.slow} (one at a time, sleeping the payload's
 * milliseconds) and {@code hol.quick}, and {@code deploy.limits=true} serves the types with cluster-wide limits
 * ({@link ClusterLimited}). Every handler writes its start and end to the test's {@link Journal}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableDelayQueue
public class DeployApp {

    @Bean
    @ConditionalOnProperty(name = "deploy.a", havingValue = "true")
    TypeA deployTypeA(Journal journal, ObjectProvider<DelayQueueRuntime> runtime) {
        return new TypeA(journal, runtime);
    }

    @Bean
    @ConditionalOnProperty(name = "deploy.b", havingValue = "true")
    TypeB deployTypeB(Journal journal, ObjectProvider<DelayQueueRuntime> runtime) {
        return new TypeB(journal, runtime);
    }

    @Bean
    @ConditionalOnProperty(name = "deploy.new", havingValue = "true")
    NewType deployNewType(Journal journal, ObjectProvider<DelayQueueRuntime> runtime) {
        return new NewType(journal, runtime);
    }

    @Bean
    @ConditionalOnProperty(name = "deploy.hol", havingValue = "true")
    SlowAndQuick deploySlowAndQuick(Journal journal, ObjectProvider<DelayQueueRuntime> runtime) {
        return new SlowAndQuick(journal, runtime);
    }

    @Bean
    @ConditionalOnProperty(name = "deploy.limits", havingValue = "true")
    ClusterLimited deployClusterLimited(Journal journal, ObjectProvider<DelayQueueRuntime> runtime) {
        return new ClusterLimited(journal, runtime);
    }

    /**
     * Three types that sleep the payload's milliseconds: {@code limit.capped} at most 3 running at once across the
     * cluster, {@code limit.paced} at most 5 started per second across the cluster, {@code limit.free} without a limit.
     */
    public static class ClusterLimited extends JournalingHandlers {

        ClusterLimited(Journal journal, ObjectProvider<DelayQueueRuntime> runtime) {
            super(journal, runtime);
        }

        @DelayedHandler(type = "limit.capped", clusterConcurrency = "3")
        void capped(long millis, TaskContext context) throws InterruptedException {
            sleep(millis, context);
        }

        @DelayedHandler(type = "limit.paced", clusterStartsPerSecond = "5")
        void paced(long millis, TaskContext context) throws InterruptedException {
            sleep(millis, context);
        }

        @DelayedHandler(type = "limit.free")
        void free(long millis, TaskContext context) throws InterruptedException {
            sleep(millis, context);
        }

        private void sleep(long millis, TaskContext context) throws InterruptedException {
            Journal.Start start = record(context, millis);
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                start.endInterrupted();
                throw ex;
            }
            start.end();
        }
    }

    /** A type that runs one at a time and slowly, and one that runs quickly and without a limit. */
    public static class SlowAndQuick extends JournalingHandlers {

        SlowAndQuick(Journal journal, ObjectProvider<DelayQueueRuntime> runtime) {
            super(journal, runtime);
        }

        @DelayedHandler(type = "hol.slow", concurrency = 1)
        void slow(long millis, TaskContext context) throws InterruptedException {
            Journal.Start start = record(context, millis);
            try {
                Thread.sleep(millis);
            }
            finally {
                start.end();
            }
        }

        @DelayedHandler(type = "hol.quick")
        void quick(String payload, TaskContext context) {
            record(context, payload).end();
        }
    }

    /** The handler of {@code deploy.a}. */
    public static class TypeA extends JournalingHandlers {

        TypeA(Journal journal, ObjectProvider<DelayQueueRuntime> runtime) {
            super(journal, runtime);
        }

        @DelayedHandler(type = "deploy.a", maxAttempts = 1)
        void run(String payload, TaskContext context) {
            record(context, payload).end();
        }
    }

    /** The handler of {@code deploy.b}. */
    public static class TypeB extends JournalingHandlers {

        TypeB(Journal journal, ObjectProvider<DelayQueueRuntime> runtime) {
            super(journal, runtime);
        }

        @DelayedHandler(type = "deploy.b", maxAttempts = 1)
        void run(String payload, TaskContext context) {
            record(context, payload).end();
        }
    }

    /** The handler of {@code deploy.new}, the type a newer version brings. */
    public static class NewType extends JournalingHandlers {

        NewType(Journal journal, ObjectProvider<DelayQueueRuntime> runtime) {
            super(journal, runtime);
        }

        @DelayedHandler(type = "deploy.new", maxAttempts = 1)
        void run(String payload, TaskContext context) {
            record(context, payload).end();
        }
    }
}
