package io.github.delayqueue.index;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.FixedBackOff;

/**
 * This instance's subscription to the wake-up channel, kept alive by {@link #check()}, which the engine calls about
 * once a second while Redis answers. Neither the listener container nor Lettuce can be left to it: the container
 * never retries a subscription that failed as it started (Redis down at startup, or a registration that timed out
 * on a loaded machine), and Lettuce subscribes a dropped connection again only at its own reconnect back-off, up to
 * 30 s after a long outage. So the check subscribes again when the container is not listening, and otherwise
 * publishes an echo on a channel of this instance's own when nothing was heard for a second: an echo that does not
 * come back in time means the subscription is dead, whatever the container believes, and it is made afresh.
 */
final class WakeSubscription {

    private static final Logger log = LoggerFactory.getLogger(WakeSubscription.class);

    /** How long the container's start waits for Redis to confirm the subscription. */
    private static final long REGISTRATION_WAIT_MILLIS = 5_000;

    /** A registration that timed out may still complete; it is left alone this long before starting afresh. */
    private static final long REGISTRATION_GIVE_UP_NANOS = TimeUnit.MILLISECONDS.toNanos(2 * REGISTRATION_WAIT_MILLIS);

    /** Silence after which an echo is sent to prove the subscription still delivers. */
    private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** An echo not back by then means a dead subscription; generous, a false alarm costs a fresh subscription. */
    private static final long ECHO_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(3);

    private final RedisConnectionFactory connectionFactory;

    private final StringRedisTemplate redis;

    private final String channel;

    private final String echoChannel;

    private final LongConsumer listener;

    private @Nullable RedisMessageListenerContainer container;

    /** The container's threads: messages are handed to one (not a new thread per message), subscribing to another. */
    private @Nullable ExecutorService dispatch;

    private @Nullable ExecutorService subscribing;

    private long startedAt;

    /** When anything last arrived on either channel (System.nanoTime). */
    private volatile long heardAt;

    private long echoSentAt;

    private boolean echoPending;

    /** The subscription failed or was lost, and that was logged: its return is logged too. */
    private boolean lost;

    private boolean stopped;

    WakeSubscription(RedisConnectionFactory connectionFactory, StringRedisTemplate redis, String channel,
            LongConsumer listener) {
        this.connectionFactory = connectionFactory;
        this.redis = redis;
        this.channel = channel;
        this.echoChannel = channel + ":echo:" + UUID.randomUUID();
        this.listener = listener;
    }

    /** Subscribes; on failure throws, and {@link #check()} tries again. */
    synchronized void start() {
        discard();
        if (stopped) {
            return;
        }
        RedisMessageListenerContainer started = new RedisMessageListenerContainer();
        started.setConnectionFactory(connectionFactory);
        // No recovery of its own: it would sleep on the calling thread and log an error every attempt while Redis
        // is down. check() subscribes again instead, and only while Redis answers.
        started.setRecoveryBackoff(new FixedBackOff(0, 0));
        started.setMaxSubscriptionRegistrationWaitingTime(REGISTRATION_WAIT_MILLIS);
        dispatch = thread("delay-wake-ups");
        subscribing = thread("delay-wake-subscription"); // a blocking client (Jedis) holds it while subscribed
        started.setTaskExecutor(dispatch);
        started.setSubscriptionExecutor(subscribing);
        started.addMessageListener((message, pattern) -> {
            heardAt = System.nanoTime();
            try {
                listener.accept(Long.parseLong(new String(message.getBody(), StandardCharsets.UTF_8)));
            }
            catch (NumberFormatException ex) {
                // not ours; wake-ups are hints
            }
        }, new ChannelTopic(channel));
        started.addMessageListener((message, pattern) -> heardAt = System.nanoTime(), new ChannelTopic(echoChannel));
        started.afterPropertiesSet();
        container = started;
        startedAt = System.nanoTime();
        echoPending = false;
        try {
            started.start();
        }
        catch (RuntimeException ex) {
            // A registration that timed out goes on (Redis is slow to confirm): check() sees whether it completes.
            if (!(ex instanceof IllegalStateException && ex.getCause() instanceof TimeoutException)) {
                discard();
            }
            lost = true;
            throw new IndexUnavailableException("Subscribing to wake-ups on " + channel + ": " + ex.getMessage(), ex);
        }
        heardAt = System.nanoTime();
        if (lost) {
            lost = false;
            log.info("Subscribed to wake-ups on {} again", channel);
        }
    }

    /** Makes sure the subscription delivers, subscribing again if not; returns whether it is known to be live. */
    synchronized boolean check() {
        if (stopped) {
            return false;
        }
        long now = System.nanoTime();
        RedisMessageListenerContainer current = container;
        if (current == null || !current.isListening()) {
            if (current != null && now - startedAt < REGISTRATION_GIVE_UP_NANOS) {
                return false; // a registration that timed out may still complete
            }
            return restart();
        }
        long heard = heardAt;
        if (echoPending && heard - echoSentAt >= 0) {
            echoPending = false;
        }
        if (echoPending) {
            if (now - echoSentAt < ECHO_TIMEOUT_NANOS) {
                return true;
            }
            log.info("Wake-ups on {} stopped arriving (an echo did not come back within {} s); subscribing again",
                    channel, TimeUnit.NANOSECONDS.toSeconds(ECHO_TIMEOUT_NANOS));
            lost = true;
            return restart();
        }
        if (now - heard >= QUIET_NANOS) {
            try {
                redis.convertAndSend(echoChannel, "echo");
                echoSentAt = now;
                echoPending = true;
            }
            catch (RuntimeException ex) {
                // Redis went away again: nothing to learn about the subscription now
            }
        }
        return true;
    }

    private boolean restart() {
        boolean logged = lost;
        try {
            start();
            return true;
        }
        catch (IndexUnavailableException ex) {
            if (!logged) {
                log.info("Could not subscribe to wake-ups ({}); trying again every second while Redis answers",
                        ex.getMessage());
            }
            return false;
        }
    }

    /** Unsubscribes for good: later checks subscribe no more. */
    synchronized void stop() {
        stopped = true;
        discard();
    }

    private void discard() {
        RedisMessageListenerContainer old = container;
        container = null;
        if (old != null) {
            try {
                old.destroy();
            }
            catch (Exception ex) {
                // a dead subscription; nothing to keep
            }
        }
        for (ExecutorService executor : new ExecutorService[] { dispatch, subscribing }) {
            if (executor != null) {
                executor.shutdownNow();
            }
        }
        dispatch = null;
        subscribing = null;
    }

    private static ExecutorService thread(String name) {
        return Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        });
    }
}
