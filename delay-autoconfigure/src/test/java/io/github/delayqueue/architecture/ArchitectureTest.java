package io.github.delayqueue.architecture;

import java.util.Arrays;

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

/**
 * The package rules of the library, checked on every build: imports only point down, from {@code autoconfigure} and
 * {@code actuate} through {@code schedule} and {@code engine} to {@code handler}, {@code store} and {@code index},
 * and {@code api} imports nothing of ours. And Spring Boot's own rules for auto-configuration classes.
 */
class ArchitectureTest {

    private static final String BASE = "io.github.delayqueue";

    /** The library's main classes, wherever the build folder is (see the parent pom's {@code build.folder}). */
    private static final JavaClasses LIBRARY = new ClassFileImporter()
        .withImportOption(location -> !location.contains("/test-classes/"))
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
    void theEngineHandlersAndSchedulingNeverUseActuatorOrAutoConfiguration() {
        check(noClasses().that().resideInAnyPackage(BASE + ".engine..", BASE + ".handler..", BASE + ".schedule..")
            .should().dependOnClassesThat().resideInAnyPackage(BASE + ".actuate..", BASE + ".autoconfigure..")
            .because("the engine is built with plain constructors, also by tests without a context"));
    }

    @Test
    void theEngineNeverUsesTheWritePath() {
        check(noClasses().that().resideInAPackage(BASE + ".engine..")
            .should().dependOnClassesThat().resideInAPackage(BASE + ".schedule..")
            .because("scheduling builds on the engine's shared runtime (clock, tiers, index, wake-ups), never the "
                    + "other way round"));
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
