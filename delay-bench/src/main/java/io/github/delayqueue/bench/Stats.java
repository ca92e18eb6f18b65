package io.github.delayqueue.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Percentiles (nearest rank) and medians; small and exact, the samples fit in memory. */
final class Stats {

    private Stats() {
    }

    /** The {@code p} quantile (0..1) of sorted {@code values}, nearest rank; NaN when empty. */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
    }

    static double[] sorted(double[] values) {
        double[] copy = values.clone();
        Arrays.sort(copy);
        return copy;
    }

    static double[] sorted(List<Double> values) {
        double[] array = new double[values.size()];
        for (int i = 0; i < array.length; i++) {
            array[i] = values.get(i);
        }
        Arrays.sort(array);
        return array;
    }

    /** {@code prefix}p50_ms, p99_ms (p999_ms) and max_ms of sorted milliseconds, rounded for printing. */
    static void percentiles(Map<String, Object> result, String prefix, double[] sorted, boolean p999) {
        result.put(prefix + "p50_ms", round(percentile(sorted, 0.50)));
        result.put(prefix + "p99_ms", round(percentile(sorted, 0.99)));
        if (p999) {
            result.put(prefix + "p999_ms", round(percentile(sorted, 0.999)));
        }
        result.put(prefix + "max_ms", round(percentile(sorted, 1.0)));
    }

    static double median(List<Double> values) {
        double[] sorted = values.stream().filter(v -> v != null && !v.isNaN()).mapToDouble(Double::doubleValue)
            .sorted().toArray();
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    static double mean(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return values.length == 0 ? Double.NaN : sum / values.length;
    }

    /** Rounds for printing: 3 significant decimals below 10, 1 below 1000, none above. */
    static double round(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return value;
        }
        double abs = Math.abs(value);
        double scale = abs < 10 ? 1000 : abs < 1000 ? 10 : 1;
        return Math.round(value * scale) / scale;
    }
}
