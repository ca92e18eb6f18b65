package io.github.delayqueue.bench;

/**
 * What a workload works with in one run: the options, the servers, the combination, the run's own database, key
 * prefix and task table, the plan and the recorder, the run's Redis, and (once started) the instances.
 */
final class Run {

    final BenchOptions options;

    final Servers servers;

    final RunSpec spec;

    final String database;

    final String prefix;

    final String table;

    final Plan plan;

    final Recorder recorder;

    /** The run's Redis (the cluster in a cluster run), for its own checks and counters. */
    final RedisTarget redis;

    private Instances instances;

    Run(BenchOptions options, Servers servers, RunSpec spec, String database, String prefix, String table, Plan plan,
            Recorder recorder, RedisTarget redis) {
        this.options = options;
        this.servers = servers;
        this.spec = spec;
        this.database = database;
        this.prefix = prefix;
        this.table = table;
        this.plan = plan;
        this.recorder = recorder;
        this.redis = redis;
    }

    Instances instances() {
        return instances;
    }

    void instances(Instances started) {
        this.instances = started;
    }

    boolean hybrid() {
        return spec.mode().equals("hybrid");
    }
}
