package io.github.delayqueue.runtime;

import java.time.Duration;

import io.github.delayqueue.api.TaskStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TiersTest {

    @Test
    void theTierFollowsTheDueTime() {
        Tiers hybrid = Tiers.hybrid(Duration.ofHours(1));
        assertThat(hybrid.statusFor(1000 + 3_600_000, 1000)).isEqualTo(TaskStatus.QUEUED);
        assertThat(hybrid.statusFor(1001 + 3_600_000, 1000)).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(Tiers.databaseOnly().statusFor(1000, 1000)).isEqualTo(TaskStatus.SCHEDULED);
    }
}
