package io.github.delayqueue.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The properties reference, {@code docs/properties.md}, lists exactly the properties of the configuration metadata
 * this module's build wrote (the {@code delay.*} properties and the {@code delayqueue} endpoint's), each once, with
 * the metadata's default where it has one and no literal default where it has none. {@link ConfigurationMetadataTest}
 * holds the metadata to the properties classes; this test holds the page to the metadata.
 */
class PropertiesDocumentationTest {

    private static final String PAGE = "docs/properties.md";

    /** The header of a table of properties; other tables on the page are not read. */
    private static final Pattern HEADER = Pattern.compile("^\\|\\s*property\\s*\\|\\s*default\\s*\\|.*");

    private static final Pattern ROW = Pattern.compile("^\\|\\s*`([^`]+)`\\s*\\|\\s*([^|]*?)\\s*\\|.*");

    /** A default cell that claims a value: one code span and nothing else. */
    private static final Pattern LITERAL = Pattern.compile("^`([^`]+)`$");

    @Test
    void thePropertiesPageListsEveryPropertyOfTheMetadataWithItsDefault() throws IOException {
        Path page = page();
        Map<String, JsonNode> metadata = ourProperties();
        assertThat(metadata).as("properties of io.github.delayqueue types in the configuration metadata").isNotEmpty();

        List<String> problems = new ArrayList<>();
        Map<String, String> documented = documentedDefaults(page, problems);
        metadata.forEach((name, property) -> {
            String cell = documented.get(name);
            if (cell == null) {
                problems.add(name + " is in the metadata but missing from " + PAGE);
                return;
            }
            JsonNode declared = property.get("defaultValue");
            Matcher literal = LITERAL.matcher(cell);
            if (declared != null && !literal.matches()) {
                problems.add(name + " has the default " + declared + " in the metadata, but " + PAGE + " says "
                        + cell + " (write the default as one code span)");
            }
            else if (declared != null && !sameValue(property.get("type").asString(), declared, literal.group(1))) {
                problems.add(name + " has the default " + declared + " in the metadata, but " + PAGE + " says "
                        + cell);
            }
            else if (declared == null && literal.matches()) {
                problems.add(name + " has no default in the metadata, but " + PAGE + " says " + cell
                        + " (say in words what happens when it is not set)");
            }
        });
        documented.keySet().stream()
            .filter(name -> !metadata.containsKey(name))
            .forEach(name -> problems.add(name + " is documented in " + PAGE + " but is not in the metadata"));
        assertThat(problems).as(PAGE + " (" + page + ") against the configuration metadata").isEmpty();
    }

    /** The page, found from the module's directory upwards, so that it does not depend on where the test runs. */
    private static Path page() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(PAGE);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError(PAGE + " not found in " + Path.of("").toAbsolutePath() + " or above it");
    }

    /**
     * The properties whose source is one of ours, from every metadata file on the class path (Boot's jars carry
     * theirs; ours is the one this module's build wrote, with the endpoint's properties beside the {@code delay.*}).
     */
    private static Map<String, JsonNode> ourProperties() throws IOException {
        Map<String, JsonNode> properties = new LinkedHashMap<>();
        JsonMapper mapper = JsonMapper.builder().build();
        for (URL url : Collections.list(PropertiesDocumentationTest.class.getClassLoader()
            .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                for (JsonNode property : mapper.readTree(in).path("properties")) {
                    if (property.path("sourceType").asString("").startsWith("io.github.delayqueue.")) {
                        properties.put(property.get("name").asString(), property);
                    }
                }
            }
        }
        return properties;
    }

    /** Each property of the page's property tables with its default cell; a property listed twice is a problem. */
    private static Map<String, String> documentedDefaults(Path page, List<String> problems) throws IOException {
        Map<String, String> documented = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            if (HEADER.matcher(line).matches()) {
                inTable = true;
                continue;
            }
            if (!line.startsWith("|")) {
                inTable = false;
                continue;
            }
            Matcher row = ROW.matcher(line);
            if (inTable && row.matches()) {
                String previous = documented.put(row.group(1), row.group(2));
                if (previous != null) {
                    problems.add(row.group(1) + " is documented more than once in " + PAGE);
                }
            }
        }
        return documented;
    }

    private static boolean sameValue(String type, JsonNode declared, @Nullable String documented) {
        if (documented == null) {
            return false;
        }
        String value = declared.asString();
        try {
            return switch (type) {
                case "java.time.Duration" -> DurationStyle.detectAndParse(value)
                    .equals(DurationStyle.detectAndParse(documented));
                case "org.springframework.util.unit.DataSize" ->
                    DataSize.parse(value).equals(DataSize.parse(documented));
                case "java.lang.Integer", "java.lang.Long", "java.lang.Double" ->
                    declared.asDouble() == Double.parseDouble(documented);
                case "java.lang.Boolean" -> declared.asBoolean() == Boolean.parseBoolean(documented)
                        && (documented.equals("true") || documented.equals("false"));
                case "java.lang.String" -> value.equals(documented);
                default -> constant(value).equals(constant(documented)); // an enum, bound leniently by Boot
            };
        }
        catch (IllegalArgumentException ex) {
            return false;
        }
    }

    private static String constant(String value) {
        return value.replace('-', '_').toUpperCase(Locale.ROOT);
    }
}
