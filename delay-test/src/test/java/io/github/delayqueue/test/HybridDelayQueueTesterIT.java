package io.github.delayqueue.test;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.testservices.TestRedis;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.AfterEach;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The test kit on the real task table in hybrid mode, with the real Redis index beside it: tasks due within the
 * threshold are {@code QUEUED} (and indexed) as in production; the tester claims them from the table by due time.
 */
class HybridDelayQueueTesterIT extends DelayQueueTesterScenarios {

    private LettuceConnectionFactory redis;

    @Override
    DelayQueueTester create(Object handlers) {
        redis = TestRedis.single();
        return DelayQueueTester.build(DelayQueueRuntime.builder(TestServices.newDatabase().dataSource())
            .initializeSchema(true)
            .timeIndex(new RedisTimeIndex(redis, TestServices.newKeyPrefix(), 1))
            .handlers(handlers));
    }

    @Override
    @AfterEach
    void closeTester() {
        super.closeTester();
        if (redis != null) {
            redis.destroy();
        }
    }

    @Override
    TaskStatus nearStatus() {
        return TaskStatus.QUEUED;
    }
}
