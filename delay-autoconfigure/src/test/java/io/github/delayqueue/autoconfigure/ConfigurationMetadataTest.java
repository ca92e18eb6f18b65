package io.github.delayqueue.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The IDE metadata the configuration processor writes from the javadoc is complete: every {@code delay.*} property
 * of every properties class is listed, has a description, and has a default exactly when the class has one, equal
 * to it.
 */
class ConfigurationMetadataTest {

    private static final List<Class<?>> PROPERTIES_CLASSES = List.of(DelayQueueProperties.class,
            DelayQueueMetricsProperties.class);

    @Test
    void everyDelayPropertyIsDescribedWithItsDefault() throws IOException {
        Map<String, JsonNode> metadata = delayProperties();
        assertThat(metadata).isNotEmpty();

        Map<String, Object> defaults = new LinkedHashMap<>();
        for (Class<?> type : PROPERTIES_CLASSES) {
            String prefix = type.getAnnotation(ConfigurationProperties.class).value();
            collect(prefix, BeanUtils.instantiateClass(type), defaults);
        }

        assertThat(new TreeSet<>(metadata.keySet())).as("properties in the metadata")
            .isEqualTo(new TreeSet<>(defaults.keySet()));
        List<String> problems = new ArrayList<>();
        metadata.forEach((name, property) -> {
            JsonNode description = property.get("description");
            if (description == null || description.asString().isBlank()) {
                problems.add(name + " has no description (javadoc on its field)");
            }
            Object expected = defaults.get(name);
            JsonNode declared = property.get("defaultValue");
            if (expected == null && declared != null) {
                problems.add(name + " declares default " + declared + " but has none");
            }
            else if (expected != null && declared == null) {
                problems.add(name + " has default " + expected + " missing from the metadata");
            }
            else if (expected != null && !sameValue(expected, declared)) {
                problems.add(name + " declares default " + declared + " but has " + expected);
            }
        });
        assertThat(problems).isEmpty();
    }

    /** The {@code delay.*} properties of the metadata this module's build wrote (Boot's own jars carry theirs). */
    private static Map<String, JsonNode> delayProperties() throws IOException {
        Map<String, JsonNode> properties = new LinkedHashMap<>();
        JsonMapper mapper = JsonMapper.builder().build();
        for (URL url : Collections.list(ConfigurationMetadataTest.class.getClassLoader()
            .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                for (JsonNode property : mapper.readTree(in).path("properties")) {
                    String name = property.get("name").asString();
                    if (name.startsWith("delay.")) {
                        properties.put(name, property);
                    }
                }
            }
        }
        return properties;
    }

    /** Leaf properties of a properties object and their default values, by their kebab-case names. */
    private static void collect(String prefix, Object bean, Map<String, Object> into) {
        BeanWrapper wrapper = PropertyAccessorFactory.forBeanPropertyAccess(bean);
        for (PropertyDescriptor descriptor : wrapper.getPropertyDescriptors()) {
            if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
                continue;
            }
            String name = prefix + "." + kebab(descriptor.getName());
            Object value = wrapper.getPropertyValue(descriptor.getName());
            Class<?> type = descriptor.getPropertyType();
            boolean nested = descriptor.getWriteMethod() == null && type.getName().startsWith("io.github.delayqueue.");
            if (nested) {
                collect(name, value, into);
            }
            else if (descriptor.getWriteMethod() != null) {
                into.put(name, value);
            }
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
    }

    private static boolean sameValue(Object expected, JsonNode declared) {
        if (expected instanceof Duration duration) {
            return DurationStyle.detectAndParse(declared.asString()).equals(duration);
        }
        if (expected instanceof DataSize size) {
            return DataSize.parse(declared.asString()).equals(size);
        }
        if (expected instanceof Enum<?> constant) {
            return constant.name().equalsIgnoreCase(declared.asString().replace('-', '_'));
        }
        if (expected instanceof Number number) {
            return declared.isNumber() && declared.asDouble() == number.doubleValue();
        }
        if (expected instanceof Boolean bool) {
            return declared.isBoolean() && declared.asBoolean() == bool;
        }
        return expected.toString().equals(declared.asString());
    }
}
