package io.github.delayqueue.index;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.testservices.TestServices;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A wake-up subscription that stops delivering while Redis still answers commands (here: its connection is killed and
 * the client does not reconnect it; in life, a reconnect back-off of up to 30 s, or a connection that died silently)
 * is noticed by the echo and made again by {@link TimeIndex#keepSubscribed()}.
 */
class WakeSubscriptionIT {

    @Test
    void aSubscriptionThatStoppedDeliveringIsMadeAgain() {
        String clientName = "delay-it-wake-" + UUID.randomUUID().toString().substring(0, 8);
        URI uri = URI.create(TestServices.redisUrl());
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()),
                LettuceClientConfiguration.builder()
                    .clientName(clientName)
                    .clientOptions(ClientOptions.builder().autoReconnect(false).build())
                    .commandTimeout(Duration.ofSeconds(2))
                    .build());
        factory.afterPropertiesSet();
        factory.start();
        RedisClient admin = RedisClient.create(TestServices.redisUrl());
        String prefix = TestServices.newKeyPrefix();
        String channel = prefix + ":wake";
        RedisTimeIndex index = new RedisTimeIndex(factory, prefix, 1);
        try (StatefulRedisConnection<String, String> connection = admin.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            List<Long> heard = new CopyOnWriteArrayList<>();
            index.subscribe(heard::add);
            assertThat(subscribers(redis, channel)).isEqualTo(1);

            killPubSubClients(redis, clientName);
            await("the subscription is gone").atMost(Duration.ofSeconds(5))
                .until(() -> subscribers(redis, channel) == 0);

            // the engine calls this once a second while Redis answers; the echo needs a quiet second plus 3 s
            await("subscribed again").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                index.keepSubscribed();
                return subscribers(redis, channel) == 1;
            });
            redis.publish(channel, "42");
            await("a wake-up arrives").atMost(Duration.ofSeconds(5)).until(() -> heard.contains(42L));
        }
        finally {
            index.unsubscribe();
            factory.destroy();
            admin.shutdown();
        }
    }

    private static long subscribers(RedisCommands<String, String> redis, String channel) {
        return redis.pubsubNumsub(channel).getOrDefault(channel, 0L);
    }

    /** Kills the pub/sub connections of this test's client only; other clients of the shared Redis are left alone. */
    private static void killPubSubClients(RedisCommands<String, String> redis, String clientName) {
        int killed = 0;
        for (String line : redis.clientList().split("\n")) {
            if (line.contains(" name=" + clientName + " ") && line.contains(" flags=P ")) {
                long id = Long.parseLong(line.substring(line.indexOf("id=") + 3, line.indexOf(' ')));
                redis.clientKill(KillArgs.Builder.id(id));
                killed++;
            }
        }
        assertThat(killed).as("pub/sub connections of %s", clientName).isPositive();
    }
}
