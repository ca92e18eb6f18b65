package io.github.delayqueue.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package rules of the library, checked on every build: imports only point down, from {@code autoconfigure} and
 * {@code actuate} through {@code engine} to {@code store} and {@code index}, and {@code api} imports nothing of ours.
 * And Spring Boot's own rules for auto-configuration classes.
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

    @Test
    void theApiImportsNothingOfOurs() {
        check(noClasses().that().resideInAPackage(BASE + ".api..")
            .should().dependOnClassesThat().resideInAnyPackage(BASE + ".engine..", BASE + ".store..",
                    BASE + ".index..", BASE + ".autoconfigure..", BASE + ".actuate..")
            .because("users see the api alone"));
    }

    @Test
    void theStoreAndTheIndexUseOnlyTheApi() {
        check(noClasses().that().resideInAnyPackage(BASE + ".store..", BASE + ".index..")
            .should().dependOnClassesThat().resideInAnyPackage(BASE + ".engine..", BASE + ".autoconfigure..",
                    BASE + ".actuate..")
            .because("storage knows nothing of the engine that drives it"));
        check(noClasses().that().resideInAPackage(BASE + ".store..")
            .should().dependOnClassesThat().resideInAPackage(BASE + ".index.."));
        check(noClasses().that().resideInAPackage(BASE + ".index..")
            .should().dependOnClassesThat().resideInAPackage(BASE + ".store.."));
    }

    @Test
    void theEngineNeverUsesActuatorOrAutoConfiguration() {
        check(noClasses().that().resideInAPackage(BASE + ".engine..")
            .should().dependOnClassesThat().resideInAnyPackage(BASE + ".actuate..", BASE + ".autoconfigure..")
            .because("the engine is built with plain constructors, also by tests without a context"));
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
