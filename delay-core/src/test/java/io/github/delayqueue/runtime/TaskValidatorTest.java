package io.github.delayqueue.runtime;

import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.api.TaskRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TaskValidatorTest {

    private static final long NOW = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    private final TaskValidator validator = new TaskValidator(100);

    @Test
    void typesMustBeShortPrintableAndNotBlank() {
        validator.checkType("order.cancel");
        validator.checkType("odd/chars:ü-漢字 😀 #1");
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkType(" "))
            .withMessageContaining("blank");
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkType(null))
            .withMessageContaining("blank");
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkType("x".repeat(129)))
            .withMessageContaining("129").withMessageContaining("128");
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkType("tab\there"))
            .withMessageContaining("control character");
    }

    @Test
    void keysAreOptionalButNeverEmptyOrTooLong() {
        validator.checkKey(null);
        validator.checkKey("k".repeat(255));
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkKey(""))
            .withMessageContaining("pass null");
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkKey("k".repeat(256)))
            .withMessageContaining("255");
    }

    @Test
    void keysAndTypesEndingInASpaceAreRejectedBecauseTheDatabaseIgnoresTrailingSpaces() {
        validator.checkKey(" leading and inner spaces are fine");
        validator.checkType(" t y p e");
        validator.checkKey("no-break space\u00A0"); // only U+0020 is padded
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkKey("user-42 "))
            .withMessageContaining("task key 'user-42 ' ends with a space")
            .withMessageContaining("same task key as 'user-42'")
            .withMessageContaining("strip the key");
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkKey("k   "))
            .withMessageContaining("same task key as 'k'");
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkType("order.cancel "))
            .withMessageContaining("task type 'order.cancel ' ends with a space")
            .withMessageContaining("same task type as 'order.cancel'");
    }

    @Test
    void payloadsOverTheLimitOrWithBrokenUnicodeAreRejected() {
        validator.checkPayload("t", "\"" + "a".repeat(98) + "\"");
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkPayload("t", "\"" + "a".repeat(99) + "\""))
            .withMessageContaining("101 bytes").withMessageContaining("delay.payload.max-size");
        // multi-byte characters count as their UTF-8 size
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkPayload("t", "\"" + "é".repeat(50) + "\""))
            .withMessageContaining("102 bytes");
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkPayload("t", "\"\uD800\""))
            .withMessageContaining("unpaired UTF-16 surrogate");
        validator.checkPayload("t", "\"😀\"");
    }

    @Test
    void dueTimesInThePastMeanNowAndTheFarFutureIsRejected() {
        assertThat(validator.dueAt(Instant.ofEpochMilli(NOW - 5000), NOW)).isEqualTo(NOW);
        assertThat(validator.dueAt(Instant.MIN, NOW)).isEqualTo(NOW);
        assertThat(validator.dueAt(Instant.ofEpochMilli(NOW + 5000), NOW)).isEqualTo(NOW + 5000);
        assertThat(validator.dueAt(TaskValidator.MAX_DUE, NOW)).isEqualTo(TaskValidator.MAX_DUE.toEpochMilli());
        assertThatIllegalArgumentException().isThrownBy(() -> validator.dueAt(Instant.MAX, NOW))
            .withMessageContaining("9999");
        assertThat(validator.dueAfter(Duration.ofMillis(-5), NOW)).isEqualTo(NOW);
        assertThat(validator.dueAfter(Duration.ofDays(1), NOW)).isEqualTo(NOW + 86_400_000);
        assertThatIllegalArgumentException()
            .isThrownBy(() -> validator.dueAfter(Duration.ofSeconds(Long.MAX_VALUE), NOW))
            .withMessageContaining("9999");
        assertThat(validator.dueAt(TaskRequest.of("t", null).build(), NOW)).isEqualTo(NOW);
        assertThatIllegalArgumentException().isThrownBy(() -> validator.dueAt((Instant) null, NOW));
    }

    @Test
    void maxAttemptsMustBePositive() {
        validator.checkMaxAttempts(null);
        validator.checkMaxAttempts(1);
        assertThatIllegalArgumentException().isThrownBy(() -> validator.checkMaxAttempts(0))
            .withMessageContaining("at least 1");
    }

    @Test
    void nullsInTheRequestBuilderAreIllegalArguments() {
        assertThatIllegalArgumentException().isThrownBy(() -> TaskRequest.of(null, "x"))
            .withMessageContaining("type");
        assertThatIllegalArgumentException().isThrownBy(() -> TaskRequest.of("t", "x").delay(null))
            .withMessageContaining("delay");
        assertThatIllegalArgumentException().isThrownBy(() -> TaskRequest.of("t", "x").dueAt(null))
            .withMessageContaining("dueAt");
    }
}
