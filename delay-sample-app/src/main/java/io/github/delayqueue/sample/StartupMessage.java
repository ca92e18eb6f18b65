package io.github.delayqueue.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

/** Prints where the service listens and a request to try, once it is ready for requests. */
@Component
class StartupMessage implements ApplicationListener<ApplicationReadyEvent> {

    private static final Logger log = LoggerFactory.getLogger(StartupMessage.class);

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        String port = event.getApplicationContext().getEnvironment().getProperty("local.server.port");
        if (port == null) {
            return;
        }
        log.info("Order service ready at http://localhost:{}/orders; try: curl -s -X POST localhost:{}/orders "
                + "-H 'Content-Type: application/json' -d '{\"amount\": 12.50, \"cancelAfter\": \"PT1M\"}'", port,
                port);
    }
}
