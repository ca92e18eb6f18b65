package io.github.delayqueue.reliability;

import java.nio.file.Path;
import java.util.Arrays;

import io.github.delayqueue.it.Journal;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * One instance of {@link ReliabilityApp} in a JVM of its own, so a test can kill it with SIGKILL: its database
 * sessions and Redis connections die with it, as in a real crash. Arguments: the journal file, optionally
 * {@code app=} and the class of another test application, then Spring properties. Prints {@code READY} once the
 * engine runs.
 */
public final class ChildInstance {

    static final String APP = "app=";

    private ChildInstance() {
    }

    public static void main(String[] args) throws InterruptedException, ClassNotFoundException {
        Journal journal = new Journal(Path.of(args[0]));
        Class<?> application = ReliabilityApp.class;
        int properties = 1;
        if (args.length > 1 && args[1].startsWith(APP)) {
            application = Class.forName(args[1].substring(APP.length()));
            properties = 2;
        }
        new SpringApplicationBuilder(application)
            .web(WebApplicationType.NONE)
            .properties(Arrays.copyOfRange(args, properties, args.length))
            .initializers(ctx -> ctx.getBeanFactory().registerSingleton("journal", journal))
            .run();
        System.out.println("READY");
        System.out.flush();
        // the engine's threads are daemons: keep the JVM up until the test kills it
        Thread.sleep(Long.MAX_VALUE);
    }
}
