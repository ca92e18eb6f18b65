package io.github.delayqueue.test;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.handler.PayloadBindingException;
import io.github.delayqueue.handler.PayloadCodec;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * What every {@link PayloadCodec} must do. {@code schedule} encodes the payload and stores the text as it is: any text
 * of valid Unicode, and text for a {@code null} payload too, as the column is {@code NOT NULL}; what the codec cannot
 * encode is the caller's mistake, an {@link IllegalArgumentException} from {@code schedule} before anything is
 * written. The worker decodes the stored text to the handler's parameter type as the method declares it (generic
 * types included; for a primitive, its box) and passes the result to the handler: what the codec wrote binds back
 * equal, and a payload that does not fit the type (a task of another type stored under the handler's, a hand-edited
 * row) is a {@link PayloadBindingException}, which dead-letters the task at once with the exception's message as the
 * reason; anything else a codec throws is logged as a bug in it (with its stack trace), and an {@link Error} is taken
 * for a failure around the handler and retried. One codec serves every producer and worker thread at once. Extend
 * this class to hold a codec of your own to these rules and give it in {@link #createCodec()};
 * {@code JacksonPayloadCodecContractTest} and {@code LenientJacksonPayloadCodecContractTest} in delay-core run them
 * on {@code JacksonPayloadCodec}, strict and lenient.
 */
public abstract class PayloadCodecContract {

    private PayloadCodec codec;

    /** The codec under test; called once before each test. */
    protected abstract PayloadCodec createCodec();

    @BeforeEach
    void createTheCodec() {
        codec = createCodec();
    }

    // --- round trips ------------------------------------------------------------------------------------------

    @Test
    void aRecordWithNestedRecordsListsAndMapsBindsBackEqual() {
        Order order = order(42);

        assertThat(roundTrip(order, Order.class)).isEqualTo(order);
    }

    /**
     * A strict codec calls a component that the text lacks missing, so a codec writes {@code null} components too:
     * what it wrote must bind back whatever the binding's rules.
     */
    @Test
    void nullComponentsBindBackAsNull() {
        Order order = new Order(7, null, null, false, List.of(), Map.of(), null);
        Line line = new Line(null, 1);

        assertThat(roundTrip(order, Order.class)).isEqualTo(order);
        assertThat(roundTrip(line, Line.class)).isEqualTo(line);
    }

    /** Stored as the codec wrote it, so the text must be valid Unicode: the database would change the rest. */
    @Test
    void stringsBindBackExactlyAndAreWrittenAsValidUnicode() {
        List<String> strings = List.of("", "plain", "null", "\"quoted\" and \\back\\slashed/",
                "{\"looks\":\"like JSON\"}",
                "line\nbreak\ttab\r\u0000nul\u001f", "caf\u00e9 \u4e2d\u6587 \ud83d\ude00 \u2028\u2029 \ufeff",
                " spaces around ");
        for (String string : strings) {
            String encoded = codec.encode(string);

            assertThat(validUnicode(encoded)).as("%s encoded as valid Unicode", string).isTrue();
            assertThat(codec.decode(encoded, String.class)).as("%s bound back", string).isEqualTo(string);
        }
    }

    /** A handler may declare a primitive; the engine passes the box, so the codec binds to it. */
    @Test
    void numbersAndBooleansBindBackToTheirDeclaredType() {
        assertThat(roundTrip(42, int.class)).isEqualTo(42);
        assertThat(roundTrip(Integer.MIN_VALUE, Integer.class)).isEqualTo(Integer.MIN_VALUE);
        assertThat(roundTrip(Long.MAX_VALUE, long.class)).isEqualTo(Long.MAX_VALUE);
        assertThat(roundTrip(Long.MIN_VALUE, Long.class)).isEqualTo(Long.MIN_VALUE);
        assertThat(roundTrip(0.1, double.class)).isEqualTo(0.1);
        assertThat(roundTrip(-1.5e300, Double.class)).isEqualTo(-1.5e300);
        assertThat(roundTrip(new BigDecimal("12345678901234567890.123456789"), BigDecimal.class))
            .isEqualTo(new BigDecimal("12345678901234567890.123456789"));
        assertThat(roundTrip(new BigInteger("123456789012345678901234567890"), BigInteger.class))
            .isEqualTo(new BigInteger("123456789012345678901234567890"));
        assertThat(roundTrip(true, boolean.class)).isEqualTo(true);
        assertThat(roundTrip(Boolean.FALSE, Boolean.class)).isEqualTo(false);
        assertThat(roundTrip(Color.GREEN, Color.class)).isEqualTo(Color.GREEN);
    }

    /**
     * The engine passes the handler method's generic parameter type, so the elements bind to the declared types: a
     * {@code List<Line>} holds {@link Line}s, not maps of their properties.
     */
    @Test
    void genericTypesBindToTheirDeclaredTypeArguments() {
        List<Line> lines = List.of(new Line("A-1", 2), new Line("B-7", 1));
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("a", 1L);
        counts.put("b", Long.MAX_VALUE);
        Map<String, List<Line>> byWarehouse = Map.of("north", lines, "south", List.of());
        Box<Line> box = new Box<>(new Line("C-3", 5));
        Box<List<Order>> boxOfOrders = new Box<>(List.of(order(1), order(2)));

        assertThat(roundTrip(lines, parameterType("lines"))).isEqualTo(lines);
        assertThat(roundTrip(counts, parameterType("counts"))).isEqualTo(counts);
        assertThat(roundTrip(byWarehouse, parameterType("byWarehouse"))).isEqualTo(byWarehouse);
        assertThat(roundTrip(box, parameterType("box"))).isEqualTo(box);
        assertThat(roundTrip(boxOfOrders, parameterType("boxOfOrders"))).isEqualTo(boxOfOrders);
    }

    @Test
    void aMapOfStringsListsAndBooleansBindsBackToARawMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("name", "Ada");
        map.put("tags", List.of("a", "b"));
        map.put("active", true);
        map.put("nested", Map.of("k", "v"));
        map.put("none", null);

        assertThat(roundTrip(map, Map.class)).isEqualTo(map);
    }

    /**
     * A task scheduled without a payload (JSON null, as {@code TaskRequest} says) is stored as text and bound back to
     * {@code null} for a parameter of any reference type.
     */
    @Test
    void nullIsWrittenAsTextAndBindsBackAsNull() {
        String encoded = codec.encode(null);

        assertThat(encoded).isNotNull();
        assertThat(codec.decode(encoded, Order.class)).isNull();
        assertThat(codec.decode(encoded, String.class)).isNull();
        assertThat(codec.decode(encoded, Long.class)).isNull();
        assertThat(codec.decode(encoded, parameterType("lines"))).isNull();
    }

    /**
     * The engine hands the result to the handler method by reflection: {@code null} for a primitive parameter would
     * fail every attempt as if the handler had thrown, so a JSON null either does not bind or binds to a value.
     */
    @Test
    void aPrimitiveIsNeverBoundToNull() {
        String encoded = codec.encode(null);
        Map<Class<?>, Class<?>> boxes = Map.of(int.class, Integer.class, long.class, Long.class, double.class,
                Double.class, boolean.class, Boolean.class);

        boxes.forEach((primitive, box) -> {
            List<@Nullable Object> bound = new ArrayList<>();
            Throwable thrown = catchThrowable(() -> bound.add(codec.decode(encoded, primitive)));

            if (thrown == null) {
                assertThat(bound.get(0)).as("null bound to %s", primitive).isInstanceOf(box);
            }
            else {
                assertThat(thrown).as("binding null to %s", primitive).isInstanceOf(PayloadBindingException.class);
            }
        });
    }

    /** A producer may add a component to a record before its consumers know it (a rolling release). */
    @Test
    void propertiesTheTypeDoesNotKnowAreIgnored() {
        String newer = codec.encode(new LineWithColor("A-1", 2, Color.RED));

        assertThat(codec.decode(newer, Line.class)).isEqualTo(new Line("A-1", 2));
    }

    // --- what does not fit ------------------------------------------------------------------------------------

    /**
     * Text stored under a handler's type that does not fit its parameter type is a {@link PayloadBindingException}
     * whose message says why: the engine dead-letters the task with that message as the reason.
     */
    @Test
    void aPayloadThatDoesNotFitTheTypeIsAPayloadBindingException() {
        assertDoesNotBind(codec.encode("not an order"), Order.class);
        assertDoesNotBind(codec.encode(List.of(1, 2)), Order.class);
        assertDoesNotBind(codec.encode(42), Order.class);
        assertDoesNotBind(codec.encode(true), Line.class);
        assertDoesNotBind(codec.encode(new Line("A-1", 2)), String.class);
        assertDoesNotBind(codec.encode(new Line("A-1", 2)), parameterType("lines"));
        assertDoesNotBind(codec.encode("many"), long.class);
        assertDoesNotBind(codec.encode(99_999_999_999L), int.class);
        assertDoesNotBind(codec.encode(Map.of("sku", "A-1", "quantity", "many")), Line.class);
        assertDoesNotBind(codec.encode(List.of(Map.of("sku", "A-1", "quantity", List.of()))), parameterType("lines"));
        assertDoesNotBind(codec.encode("PURPLE"), Color.class);
    }

    /** What a hand-edited row may hold. */
    @Test
    void textThatIsNoPayloadOfTheCodecsIsAPayloadBindingException() {
        assertDoesNotBind("", Order.class);
        assertDoesNotBind("{\"id\": 7, \"customer\":", Order.class);
        assertDoesNotBind("\u0000", String.class);
    }

    /**
     * A payload nested deeper than anyone writes (a hostile or broken row) binds or is a
     * {@link PayloadBindingException}, but never overflows the stack: a {@link StackOverflowError} would be taken for
     * a failure around the handler and retried, and could hit whatever the worker thread does next.
     */
    @Test
    void aPayloadNestedVeryDeepNeverOverflowsTheStack() {
        int depth = 100_000;

        assertBindsOrDoesNotFit("[".repeat(depth) + "]".repeat(depth), Object.class);
        assertBindsOrDoesNotFit("[".repeat(depth) + "]".repeat(depth), parameterType("nestedLists"));
        assertBindsOrDoesNotFit("{\"children\":[".repeat(depth) + "]}".repeat(depth), Tree.class);
    }

    /** {@code schedule} passes what {@code encode} throws to its caller, who is told: bad input. */
    @Test
    void aPayloadThatCannotBeWrittenIsAnIllegalArgumentException() {
        List<Object> cycle = new ArrayList<>();
        cycle.add("first");
        cycle.add(cycle);
        Map<String, Object> selfMap = new HashMap<>();
        selfMap.put("self", selfMap);

        assertThatIllegalArgumentException().isThrownBy(() -> codec.encode(cycle));
        assertThatIllegalArgumentException().isThrownBy(() -> codec.encode(selfMap));
        assertThatIllegalArgumentException().isThrownBy(() -> codec.encode(new Box<>(cycle)));
    }

    // --- many threads -----------------------------------------------------------------------------------------

    /** One codec encodes for every thread that schedules and decodes for every worker. */
    @Test
    void manyThreadsEncodeAndDecodeAtOnce() throws Exception {
        int threads = 8;
        int rounds = 300;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<String>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Callable<List<String>> user = () -> {
                    go.await();
                    List<String> wrong = new ArrayList<>();
                    for (int round = 0; round < rounds; round++) {
                        Order order = order(thread * 100_000L + round);
                        Object back = codec.decode(codec.encode(order), Order.class);
                        if (!order.equals(back)) {
                            wrong.add(order + " came back as " + back);
                        }
                        List<Line> lines = List.of(new Line("T" + thread + "-" + round, round));
                        Object linesBack = codec.decode(codec.encode(lines), parameterType("lines"));
                        if (!lines.equals(linesBack)) {
                            wrong.add(lines + " came back as " + linesBack);
                        }
                    }
                    return wrong;
                };
                results.add(pool.submit(user));
            }
            go.countDown();
            List<String> wrong = new ArrayList<>();
            for (Future<List<String>> result : results) {
                wrong.addAll(result.get(60, TimeUnit.SECONDS));
            }
            assertThat(wrong).isEmpty();
        }
        finally {
            pool.shutdownNow();
        }
    }

    private @Nullable Object roundTrip(@Nullable Object payload, Type type) {
        String encoded = codec.encode(payload);
        assertThat(encoded).as("%s encoded", payload).isNotNull();
        return codec.decode(encoded, type);
    }

    private void assertDoesNotBind(String text, Type type) {
        Throwable thrown = catchThrowable(() -> codec.decode(text, type));

        String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        assertThat(thrown).as("binding %s to %s", shown, type.getTypeName())
            .isInstanceOf(PayloadBindingException.class);
        assertThat(thrown.getMessage()).as("the reason, for binding %s to %s", shown, type.getTypeName())
            .isNotBlank();
    }

    private void assertBindsOrDoesNotFit(String text, Type type) {
        Throwable thrown = catchThrowable(() -> codec.decode(text, type));

        if (thrown != null) {
            assertThat(thrown).as("binding %s... to %s", text.substring(0, 20), type.getTypeName())
                .isInstanceOf(PayloadBindingException.class);
        }
    }

    private static boolean validUnicode(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1));
            if (pair) {
                i++;
            }
            else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** The generic parameter type of one of {@link Handlers}' methods, as the engine passes it to the codec. */
    private static Type parameterType(String handler) {
        Method method = Arrays.stream(Handlers.class.getDeclaredMethods())
            .filter(m -> m.getName().equals(handler))
            .findFirst()
            .orElseThrow();
        return method.getGenericParameterTypes()[0];
    }

    private static Order order(long id) {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("channel", "web");
        tags.put("coupon", "SPRING-" + id);
        return new Order(id, "customer " + id, new BigDecimal("19.90"), true,
                List.of(new Line("A-" + id, 2), new Line("B-" + id, 1)), tags, new Address("Main St 1", "Springfield"));
    }

    /** A sample payload: a record with nested records, a list, a map and a decimal. */
    public record Order(long id, @Nullable String customer, @Nullable BigDecimal total, boolean paid, List<Line> lines,
            Map<String, String> tags, @Nullable Address shipTo) {
    }

    /** A sample payload, nested in {@link Order}. */
    public record Line(@Nullable String sku, long quantity) {
    }

    /** {@link Line} as a newer producer writes it, with a component its consumers do not know yet. */
    public record LineWithColor(String sku, long quantity, Color color) {
    }

    /** A sample payload, nested in {@link Order}. */
    public record Address(String street, String city) {
    }

    /** A sample payload that nests itself. */
    public record Tree(@Nullable List<Tree> children) {
    }

    /** A generic sample payload. */
    public record Box<T>(T content) {
    }

    /** A sample payload. */
    public enum Color {
        RED, GREEN
    }

    /** Payload parameters as handlers declare them. */
    @SuppressWarnings("unused")
    private static final class Handlers {

        void lines(List<Line> lines) {
        }

        void counts(Map<String, Long> counts) {
        }

        void byWarehouse(Map<String, List<Line>> byWarehouse) {
        }

        void box(Box<Line> box) {
        }

        void boxOfOrders(Box<List<Order>> boxOfOrders) {
        }

        void nestedLists(List<List<Object>> nested) {
        }
    }
}
