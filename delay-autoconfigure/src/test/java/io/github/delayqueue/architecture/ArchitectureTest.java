package io.github.delayqueue.architecture;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package rules of the library, checked on every build: imports only point down, from {@code autoconfigure} and
 * {@code actuate} (delay-autoconfigure) through {@code runtime} to {@code handler}, {@code store} and {@code index}
 * (delay-core), and {@code api} imports nothing of ours; delay-autoconfigure sees delay-core only through its public
 * surface, which is listed here so that it grows only on purpose. And Spring Boot's own rules for auto-configuration
 * classes.
 */
class ArchitectureTest {

    private static final String BASE = "io.github.delayqueue";

    /** delay-core's packages. */
    private static final String[] CORE = { BASE + ".api..", BASE + ".handler..", BASE + ".store..",
            BASE + ".index..", BASE + ".runtime.." };

    private static final Set<String> PUBLIC_SURFACE = Set.of(
            // what applications call
            BASE + ".api.DelayQueue", BASE + ".api.DelayQueueException", BASE + ".api.DelayedHandler",
            BASE + ".api.EnableDelayQueue", BASE + ".api.OutcomeUnknownException", BASE + ".api.Scheduled",
            BASE + ".api.TaskContext",
            BASE + ".api.TaskRequest", BASE + ".api.TaskStatus", BASE + ".api.TaskView",
            // what assembles and runs the queue
            BASE + ".runtime.DelayQueueRuntime", BASE + ".runtime.DelayQueueRuntimeBuilder",
            BASE + ".runtime.QueueClock",
            // extension points: handlers, their retries, payloads, listeners
            BASE + ".runtime.TaskEvents", BASE + ".runtime.TraceContextSource", BASE + ".handler.Backoff",
            BASE + ".handler.HandlerInvoker",
            BASE + ".handler.HandlerRegistry", BASE + ".handler.HandlerSettings", BASE + ".handler.TaskHandler",
            BASE + ".handler.RetryPolicy", BASE + ".handler.PayloadCodec", BASE + ".handler.JacksonPayloadCodec",
            BASE + ".handler.PayloadBindingException",
            // the store SPI and the task table
            BASE + ".store.TaskStore", BASE + ".store.TaskInspector", BASE + ".store.ClaimId",
            BASE + ".store.ClaimedTask", BASE + ".store.Completion", BASE + ".store.DueTask",
            BASE + ".store.ExpiredLease", BASE + ".store.WriteOutcomeUnknownException", BASE + ".store.InsertedTask",
            BASE + ".store.Lease", BASE + ".store.NewTask", BASE + ".store.TableNames", BASE + ".store.TaskSchema",
            BASE + ".store.TaskTable", BASE + ".store.ClaimLimits", BASE + ".store.TypeLimit",
            // the index SPI and its Redis implementation
            BASE + ".index.TimeIndex", BASE + ".index.IndexEntry", BASE + ".index.IndexRebuilds",
            BASE + ".index.IndexUnavailableException", BASE + ".index.Popped", BASE + ".index.RedisTimeIndex");

    /**
     * The library's main classes, wherever the build folder is (see the parent pom's {@code build.folder}): neither
     * test classes nor delay-core's test hooks, which come as a folder or, once packaged, as its tests jar.
     */
    private static final JavaClasses LIBRARY = new ClassFileImporter()
        .withImportOption(location -> !location.contains("/test-classes/") && !location.contains("-tests.jar"))
        .importPackages(BASE);

    private static void check(ArchRule rule) {
        rule.check(LIBRARY);
    }

    /** Classes of ours outside the given packages (and their sub-packages). */
    private static DescribedPredicate<JavaClass> oursOutside(String... packages) {
        String[] patterns = Arrays.stream(packages).map(p -> BASE + "." + p + "..").toArray(String[]::new);
        return resideInAPackage(BASE + "..").and(not(resideInAnyPackage(patterns)))
            .as("are ours, outside " + String.join(", ", packages));
    }

    @Test
    void theApiImportsNothingOfOurs() {
        check(noClasses().that().resideInAPackage(BASE + ".api..")
            .should().dependOnClassesThat(oursOutside("api"))
            .because("users see the api alone"));
    }

    @Test
    void theStoreAndTheIndexUseOnlyTheApi() {
        check(noClasses().that().resideInAPackage(BASE + ".store..")
            .should().dependOnClassesThat(oursOutside("store", "api"))
            .because("storage knows nothing of the engine that drives it"));
        check(noClasses().that().resideInAPackage(BASE + ".index..")
            .should().dependOnClassesThat(oursOutside("index", "api"))
            .because("storage knows nothing of the engine that drives it"));
    }

    @Test
    void theHandlerModelUsesOnlyTheApi() {
        check(noClasses().that().resideInAPackage(BASE + ".handler..")
            .should().dependOnClassesThat(oursOutside("handler", "api"))
            .because("handlers and their extension points are written against the api, not the engine that runs "
                    + "them"));
    }

    @Test
    void theCoreNeverUsesSpringBootTheActuatorPartsOrTheAutoConfiguration() {
        check(noClasses().that().resideInAnyPackage(CORE)
            .should().dependOnClassesThat().resideInAnyPackage(BASE + ".actuate..", BASE + ".autoconfigure..",
                    "org.springframework.boot..")
            .because("delay-core is the queue a plain Spring or non-Spring application builds with "
                    + "DelayQueueRuntime.builder"));
    }

    @Test
    void theAutoConfigurationSeesTheCoreOnlyThroughItsPublicSurface() {
        check(noClasses().that().resideInAnyPackage(BASE + ".autoconfigure..", BASE + ".actuate..")
            .should().dependOnClassesThat(resideInAnyPackage(CORE).and(not(inPublicSurface())))
            .because("the auto-configuration binds properties and calls the builder, as an application would"));
    }

    /**
     * Every public type of delay-core is a promise to users; this list changes only on purpose. The api, the runtime
     * and its builder, and the extension points (handler model, codec, listener; the store and index SPIs, which may
     * change before 1.0).
     */
    @Test
    void theCoresPublicTypesAreTheApiTheRuntimeAndTheExtensionPoints() {
        Set<String> publicTypes = LIBRARY.stream()
            .filter(type -> type.getModifiers().contains(JavaModifier.PUBLIC) && type.isTopLevelClass())
            .filter(type -> Arrays.stream(CORE).anyMatch(p -> type.getPackageName().startsWith(p.replace("..", ""))))
            .map(JavaClass::getName)
            .collect(Collectors.toCollection(TreeSet::new));
        assertThat(publicTypes).containsExactlyInAnyOrderElementsOf(PUBLIC_SURFACE);
    }

    private static DescribedPredicate<JavaClass> inPublicSurface() {
        return DescribedPredicate.describe("are part of delay-core's public surface",
                type -> PUBLIC_SURFACE.contains(type.getName())
                        || PUBLIC_SURFACE.contains(type.getName().replaceAll("\\$.*", "")));
    }

    @Test
    void packagesHaveNoCycles() {
        check(slices().matching(BASE + ".(*)..").should().beFreeOfCycles());
    }

    @Test
    void autoConfigurationClassesArePublicAndFinalWithPackagePrivateBeanMethods() {
        check(classes().that().areAnnotatedWith(AutoConfiguration.class)
            .should().bePublic().andShould().haveModifier(JavaModifier.FINAL));
        check(methods().that().areAnnotatedWith(Bean.class)
            .and().areDeclaredInClassesThat().resideInAPackage(BASE + ".autoconfigure..")
            .should().notBePublic()
            .because("Spring Boot's auto-configurations keep their bean methods package-private"));
    }
}
