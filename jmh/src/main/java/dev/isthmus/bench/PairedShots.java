package dev.isthmus.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Single shots of JMH benchmark methods taken in turn in one JVM, so that the legs of a comparison
 * share the machine's state. On the project's benchmark host the speed of a whole process moves by
 * up to a half (`docs/benchmarks.md`, Measuring on this host): JMH runs each method in forks of its
 * own, so its ratios mix fast and slow forks. Here every round runs each leg once, in an order
 * shuffled per round, and each round gives a ratio to the first leg; the summary is the median of
 * those ratios beside the median times.
 *
 * <pre>
 * java [JVM flags] -cp jmh/target/benchmarks.jar dev.isthmus.bench.PairedShots \
 *     [--forks N] [--warmup N] [--rounds N] [--out FILE] [--against LEG]... [--jvm-args FLAGS] \
 *     [-p name=value]... CLASS.METHOD...
 * </pre>
 *
 * Legs name a benchmark method of a class in this package ({@code EncodeBenchmark.icebergFlinkWriter});
 * the first is the reference of the ratios, and each {@code --against} leg adds a table of ratios to
 * it (to a compression floor, say). Each fork is a fresh JVM with this JVM's flags and then
 * {@code --jvm-args} (heap size and the like, which this JVM does not need); the classes'
 * {@code @Fork} arguments are not read. The harness runs what
 * the project's benchmarks use: {@code @Param} fields (their first value unless {@code -p} sets it),
 * {@code @Setup} and {@code @TearDown} at trial and invocation level on the benchmark class, and
 * {@code @State} parameters of a method, whose own set-up methods may take the benchmark instance.
 * Timing is {@link System#nanoTime()} around the method alone, as JMH's single-shot mode takes it.
 */
public final class PairedShots {
    private static final String PACKAGE = PairedShots.class.getPackageName();
    private static final String ROUND = "PairedShots round ";

    /** Keeps the legs' results alive so that no call can be optimised away. */
    @SuppressWarnings("unused")
    private static volatile int sink;

    private PairedShots() {}

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        if (options.child) {
            runFork(options);
            return;
        }
        List<double[]> rounds = new ArrayList<>();
        List<String> orders = new ArrayList<>();
        List<Integer> forkOf = new ArrayList<>();
        for (int fork = 0; fork < options.forks; fork++) {
            for (String line : fork(options, fork)) {
                rounds.add(Arrays.stream(line.substring(line.indexOf(':') + 1, line.indexOf('|'))
                                .trim()
                                .split(" +"))
                        .mapToDouble(Double::parseDouble)
                        .toArray());
                orders.add(
                        line.substring(line.indexOf("order") + "order".length()).trim());
                forkOf.add(fork);
            }
        }
        System.out.print(summary(options.legs, rounds, forkOf, options.forks, 0));
        for (String reference : options.against) {
            System.out.print(summary(options.legs, rounds, forkOf, options.forks, options.legs.indexOf(reference)));
        }
        if (options.out != null) {
            Files.writeString(options.out, json(options, rounds, orders, forkOf), StandardCharsets.UTF_8);
            System.out.println("raw results: " + options.out);
        }
    }

    /** Runs one fork in a fresh JVM and returns the lines of the measured rounds it prints. */
    private static List<String> fork(Options options, int fork) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(options.forkJvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(PairedShots.class.getName());
        command.add("--child");
        command.addAll(options.childArgs);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> rounds = new ArrayList<>();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                System.out.println("[fork " + (fork + 1) + "] " + line);
                if (line.startsWith(ROUND) && !line.contains("warm-up")) {
                    rounds.add(line);
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0 || rounds.size() != options.rounds) {
            throw new IllegalStateException("fork " + (fork + 1) + " exited with " + exit + " after " + rounds.size()
                    + " of " + options.rounds + " rounds");
        }
        return rounds;
    }

    /** The child: prints one line of milliseconds per round, in leg order. */
    private static void runFork(Options options) throws Exception {
        run(options.legs, options.params, options.warmup, options.rounds, System.out::println);
    }

    /**
     * Sets up every class once, runs the rounds (warm-up first) and tears down; each round's line
     * goes to {@code lines}. Returns the measured rounds' milliseconds, in leg order.
     */
    static List<double[]> run(
            List<String> names, Map<String, String> params, int warmup, int rounds, Consumer<String> lines)
            throws ReflectiveOperationException {
        Map<Class<?>, Object> benches = new LinkedHashMap<>();
        Set<String> used = new HashSet<>();
        List<Leg> legs = new ArrayList<>();
        for (String name : names) {
            legs.add(Leg.resolve(name, benches, params, used));
        }
        if (!used.containsAll(params.keySet())) {
            Set<String> unknown = new TreeSet<>(params.keySet());
            unknown.removeAll(used);
            throw new IllegalArgumentException("no leg's class has a @Param " + unknown);
        }
        List<double[]> measured = new ArrayList<>();
        try {
            for (Object bench : benches.values()) {
                invokeAll(bench, Level.Trial, Setup.class, benches);
            }
            for (Leg leg : legs) {
                leg.setUpStates(benches);
            }
            int n = legs.size();
            // Seeded once, so that a run can be repeated: java.util.Random's first draws from
            // neighbouring seeds agree, so a seed per round gave every round one order.
            Random shuffle = new Random(0x5eed);
            for (int round = 0; round < warmup + rounds; round++) {
                // A fresh order each round, so that no leg always follows the same one and inherits
                // its garbage or its file's writeback.
                List<Integer> order =
                        new ArrayList<>(IntStream.range(0, n).boxed().toList());
                Collections.shuffle(order, shuffle);
                double[] ms = new double[n];
                for (int leg : order) {
                    ms[leg] = legs.get(leg).shot(benches);
                }
                StringBuilder line = new StringBuilder(ROUND).append(round + 1);
                line.append(round < warmup ? " (warm-up):" : ":");
                for (double v : ms) {
                    line.append(String.format(Locale.ROOT, " %.3f", v));
                }
                line.append(" | order");
                order.forEach(leg -> line.append(' ').append(leg + 1));
                lines.accept(line.toString());
                if (round >= warmup) {
                    measured.add(ms);
                }
            }
        } finally {
            for (Leg leg : legs) {
                leg.tearDownStates(benches);
            }
            for (Object bench : benches.values()) {
                invokeAll(bench, Level.Trial, TearDown.class, benches);
            }
        }
        return measured;
    }

    /** One benchmark method, with the {@code @State} objects its parameters name. */
    private record Leg(Object bench, Method method, Object[] states) {
        static Leg resolve(String name, Map<Class<?>, Object> benches, Map<String, String> params, Set<String> used)
                throws ReflectiveOperationException {
            int dot = name.lastIndexOf('.');
            if (dot < 0) {
                throw new IllegalArgumentException("a leg is CLASS.METHOD, not " + name);
            }
            Class<?> type = Class.forName(PACKAGE + "." + name.substring(0, dot));
            Object bench = benches.get(type);
            if (bench == null) {
                bench = instantiate(type, params, used);
                benches.put(type, bench);
            }
            Method method = Arrays.stream(type.getMethods())
                    .filter(m -> m.getName().equals(name.substring(dot + 1)) && m.isAnnotationPresent(Benchmark.class))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no @Benchmark method " + name));
            Object[] states = new Object[method.getParameterCount()];
            for (int i = 0; i < states.length; i++) {
                Class<?> state = method.getParameterTypes()[i];
                if (!state.isAnnotationPresent(State.class)) {
                    throw new IllegalArgumentException(name + ": parameter " + state.getName() + " is not a @State");
                }
                states[i] = instantiate(state, params, used);
            }
            return new Leg(bench, method, states);
        }

        void setUpStates(Map<Class<?>, Object> benches) throws ReflectiveOperationException {
            for (Object state : states) {
                invokeAll(state, Level.Trial, Setup.class, benches);
            }
        }

        /** Runs the invocation's set-up, the method (timed), then its tear-down; returns milliseconds. */
        double shot(Map<Class<?>, Object> benches) throws ReflectiveOperationException {
            for (Object state : states) {
                invokeAll(state, Level.Invocation, Setup.class, benches);
            }
            invokeAll(bench, Level.Invocation, Setup.class, benches);
            long start = System.nanoTime();
            Object result = method.invoke(bench, states);
            long elapsed = System.nanoTime() - start;
            sink += Objects.hashCode(result);
            invokeAll(bench, Level.Invocation, TearDown.class, benches);
            for (Object state : states) {
                invokeAll(state, Level.Invocation, TearDown.class, benches);
            }
            return elapsed / 1e6;
        }

        void tearDownStates(Map<Class<?>, Object> benches) throws ReflectiveOperationException {
            for (Object state : states) {
                invokeAll(state, Level.Trial, TearDown.class, benches);
            }
        }
    }

    private static Object instantiate(Class<?> type, Map<String, String> params, Set<String> used)
            throws ReflectiveOperationException {
        Object instance = type.getDeclaredConstructor().newInstance();
        for (Field field : type.getFields()) {
            Param param = field.getAnnotation(Param.class);
            if (param != null) {
                used.add(field.getName());
                String value = params.getOrDefault(field.getName(), param.value()[0]);
                field.set(instance, convert(value, field.getType()));
            }
        }
        return instance;
    }

    private static Object convert(String value, Class<?> type) {
        if (type == int.class) {
            return Integer.parseInt(value);
        } else if (type == long.class) {
            return Long.parseLong(value);
        } else if (type == boolean.class) {
            return Boolean.parseBoolean(value);
        } else if (type == double.class) {
            return Double.parseDouble(value);
        } else if (type == String.class) {
            return value;
        }
        throw new IllegalArgumentException("a @Param of type " + type.getName() + " is not supported here");
    }

    /**
     * Calls {@code target}'s {@code @Setup} or {@code @TearDown} methods of {@code level}, giving each
     * parameter the benchmark instance of its type. JMH's iteration level is the invocation in single
     * shots, so it runs with {@link Level#Invocation}.
     */
    private static void invokeAll(
            Object target,
            Level level,
            Class<? extends java.lang.annotation.Annotation> kind,
            Map<Class<?>, Object> benches)
            throws ReflectiveOperationException {
        for (Method method : target.getClass().getMethods()) {
            Level declared;
            if (kind == Setup.class && method.isAnnotationPresent(Setup.class)) {
                declared = method.getAnnotation(Setup.class).value();
            } else if (kind == TearDown.class && method.isAnnotationPresent(TearDown.class)) {
                declared = method.getAnnotation(TearDown.class).value();
            } else {
                continue;
            }
            if (declared == Level.Iteration) {
                declared = Level.Invocation;
            }
            if (declared != level) {
                continue;
            }
            Object[] args = new Object[method.getParameterCount()];
            for (int i = 0; i < args.length; i++) {
                Class<?> type = method.getParameterTypes()[i];
                args[i] = benches.get(type);
                if (args[i] == null) {
                    throw new IllegalArgumentException(method + ": no benchmark instance of " + type.getName());
                }
            }
            try {
                method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException(method + " failed", e.getCause());
            }
        }
    }

    /**
     * Per leg: the median time, the fork medians, and the medians of its per-round ratios to the
     * leg at {@code reference}.
     */
    static String summary(List<String> legs, List<double[]> rounds, List<Integer> forkOf, int forks, int reference) {
        StringBuilder out = new StringBuilder(String.format(
                Locale.ROOT,
                "%n%d rounds in %d forks; ratios per round against %s%n%-52s %10s  %-28s %10s %10s%n",
                rounds.size(),
                forks,
                legs.get(reference),
                "leg",
                "median ms",
                "fork medians",
                "ref/leg",
                "leg/ref"));
        for (int leg = 0; leg < legs.size(); leg++) {
            int l = leg;
            double[] times = rounds.stream().mapToDouble(r -> r[l]).toArray();
            List<String> perFork = new ArrayList<>();
            for (int fork = 0; fork < forks; fork++) {
                int f = fork;
                double[] inFork =
                        new double[(int) forkOf.stream().filter(x -> x == f).count()];
                int i = 0;
                for (int r = 0; r < rounds.size(); r++) {
                    if (forkOf.get(r) == f) {
                        inFork[i++] = rounds.get(r)[l];
                    }
                }
                perFork.add(String.format(Locale.ROOT, "%.0f", median(inFork)));
            }
            double[] speedups =
                    rounds.stream().mapToDouble(r -> r[reference] / r[l]).toArray();
            double[] slowdowns =
                    rounds.stream().mapToDouble(r -> r[l] / r[reference]).toArray();
            out.append(String.format(
                    Locale.ROOT,
                    "%-52s %10.0f  %-28s %9.2fx %9.2fx%n",
                    legs.get(leg),
                    median(times),
                    String.join(", ", perFork),
                    median(speedups),
                    median(slowdowns)));
        }
        return out.toString();
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String json(Options options, List<double[]> rounds, List<String> orders, List<Integer> forkOf) {
        StringBuilder out = new StringBuilder("{\n  \"harness\": \"PairedShots\",\n  \"jvmArgs\": [");
        List<String> jvm = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < jvm.size(); i++) {
            out.append(i == 0 ? "" : ", ").append(quote(jvm.get(i)));
        }
        out.append("],\n  \"forkJvmArgs\": [");
        for (int i = 0; i < options.forkJvmArgs.size(); i++) {
            out.append(i == 0 ? "" : ", ").append(quote(options.forkJvmArgs.get(i)));
        }
        out.append("],\n  \"params\": {");
        int p = 0;
        for (Map.Entry<String, String> e : options.params.entrySet()) {
            out.append(p++ == 0 ? "" : ", ")
                    .append(quote(e.getKey()))
                    .append(": ")
                    .append(quote(e.getValue()));
        }
        out.append("},\n  \"warmupRounds\": ").append(options.warmup).append(",\n  \"legs\": [");
        for (int i = 0; i < options.legs.size(); i++) {
            out.append(i == 0 ? "" : ", ").append(quote(options.legs.get(i)));
        }
        out.append("],\n  \"unit\": \"ms\",\n  \"rounds\": [\n");
        for (int r = 0; r < rounds.size(); r++) {
            out.append("    {\"fork\": ").append(forkOf.get(r) + 1).append(", \"ms\": [");
            double[] ms = rounds.get(r);
            for (int i = 0; i < ms.length; i++) {
                out.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.3f", ms[i]));
            }
            out.append("], \"order\": [").append(String.join(", ", orders.get(r).split(" ")));
            out.append("]}").append(r + 1 < rounds.size() ? ",\n" : "\n");
        }
        return out.append("  ]\n}\n").toString();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** The command line; the child gets the same one minus {@code --forks} and {@code --out}. */
    private static final class Options {
        int forks = 3;
        int warmup = 3;
        int rounds = 10;
        Path out;
        boolean child;
        final List<String> against = new ArrayList<>();
        final Map<String, String> params = new HashMap<>();
        final List<String> legs = new ArrayList<>();
        final List<String> childArgs = new ArrayList<>();
        final List<String> forkJvmArgs = new ArrayList<>();

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--child" -> o.child = true;
                    case "--forks" -> o.forks = positive(arg, value(args, ++i));
                    case "--out" -> o.out = Path.of(value(args, ++i));
                    case "--against" -> o.against.add(value(args, ++i));
                    case "--jvm-args" ->
                        o.forkJvmArgs.addAll(
                                Arrays.asList(value(args, ++i).trim().split("\\s+")));
                    case "--warmup" -> {
                        o.warmup = Integer.parseInt(value(args, ++i));
                        if (o.warmup < 0) {
                            throw new IllegalArgumentException("--warmup must be at least 0");
                        }
                        o.childArgs.addAll(List.of(arg, args[i]));
                    }
                    case "--rounds" -> {
                        o.rounds = positive(arg, value(args, ++i));
                        o.childArgs.addAll(List.of(arg, args[i]));
                    }
                    case "-p" -> {
                        String pair = value(args, ++i);
                        int eq = pair.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException("-p takes name=value, not " + pair);
                        }
                        o.params.put(pair.substring(0, eq), pair.substring(eq + 1));
                        o.childArgs.addAll(List.of(arg, pair));
                    }
                    default -> {
                        if (arg.startsWith("-")) {
                            throw new IllegalArgumentException("unknown option " + arg);
                        }
                        o.legs.add(arg);
                        o.childArgs.add(arg);
                    }
                }
            }
            if (o.legs.isEmpty()) {
                throw new IllegalArgumentException("usage: PairedShots [--forks N] [--warmup N] [--rounds N] "
                        + "[--out FILE] [--against LEG]... [--jvm-args FLAGS] [-p name=value]... CLASS.METHOD...");
            }
            for (String leg : o.against) {
                if (!o.legs.contains(leg)) {
                    throw new IllegalArgumentException("--against " + leg + " is not one of the legs");
                }
            }
            return o;
        }

        private static String value(String[] args, int i) {
            if (i >= args.length) {
                throw new IllegalArgumentException(args[i - 1] + " needs a value");
            }
            return args[i];
        }

        private static int positive(String option, String value) {
            int n = Integer.parseInt(value);
            if (n < 1) {
                throw new IllegalArgumentException(option + " must be at least 1");
            }
            return n;
        }
    }
}
