package io.github.delayqueue.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JdbcTimeoutAdviceTest {

    @Test
    void theDriversDefaultOfNoTimeoutIsWorthAWarningThatSaysWhatToSet() {
        assertThat(JdbcTimeoutAdvice.check(0)).contains("socketTimeout").contains("connectTimeout")
            .contains("spring.datasource.url");
    }

    @Test
    void anyTimeoutIsFine() {
        assertThat(JdbcTimeoutAdvice.check(30_000)).isNull();
    }
}
