#!/usr/bin/env python3
"""Sums JFR CPU samples (from `jfr print`, on stdin) per measured Nexmark run and Flink task.

The harness logs `nexmark: timed <query> <leg> <start>-<end>` (epoch ms) for every run; samples
are matched to the measured pair's runs by time. A sample counts for its thread, named after
the chain of operators it runs (the subtask suffix dropped), and for the first layer in LAYERS
that one of its top frames belongs to.
"""
import collections, datetime, re, sys

LAYERS = [  # the first layer any of the sample's top frames is in
    ('isthmus decode', ('dev.isthmus.iceberg.source', 'dev.isthmus.arrow')),
    ('isthmus encode', ('dev.isthmus.iceberg.sink',)),
    ('native (FFM downcall)', ('jdk.internal.foreign', 'dev.isthmus.ffm')),
    ('iceberg/parquet-java', ('org.apache.iceberg', 'org.apache.parquet', 'shaded.parquet')),
    ('compression', ('com.github.luben', 'org.xerial', 'io.airlift')),
    ('state', ('org.apache.flink.runtime.state', 'org.apache.flink.table.runtime.util', 'org.rocksdb',
               'org.apache.flink.contrib.streaming.state')),
    ('sql operators', ('org.apache.flink.table.runtime.operators', 'org.apache.flink.table.runtime.generated')),
    ('flink serialization', ('org.apache.flink.table.runtime.typeutils', 'org.apache.flink.api.common.typeutils',
                             'org.apache.flink.core.memory')),
    ('flink network', ('org.apache.flink.runtime.io', 'org.apache.flink.streaming.runtime.io')),
    ('flink other', ('org.apache.flink',)),
    ('jdk', ('java.', 'jdk.', 'sun.')),
]


def layer(frames):
    for name, prefixes in LAYERS:
        if any(frame.startswith(prefixes) for frame in frames):
            return name
    return 'other'


NATIVE_WORK = ('dev.isthmus', 'jdk.internal.foreign', 'com.github.luben', 'org.xerial', 'io.airlift')


def computing(frames):
    """A native sample counts only in the libraries that compute: a thread blocked in a native
    accept or poll is sampled too, and is no work."""
    return any(f.startswith(NATIVE_WORK) for f in frames)


def main():
    runs = []
    for line in open(sys.argv[1]):
        m = re.match(r'nexmark: timed (\S+) (\S+) (\d+)-(\d+)', line)
        if m:
            runs.append((m[2], int(m[3]), int(m[4])))
    measured = runs[2:]  # the first pair is the warm-up
    day = datetime.datetime.fromtimestamp(measured[0][1] / 1000, datetime.timezone.utc).date()
    threads = {leg: collections.Counter() for leg, _, _ in measured}
    layers = {leg: collections.Counter() for leg, _, _ in measured}
    event = None
    for line in sys.stdin:
        line = line.strip()
        if line.startswith('jdk.ExecutionSample') or line.startswith('jdk.NativeMethodSample'):
            event = {'frames': [], 'native': line.startswith('jdk.NativeMethodSample')}
        elif event is None:
            continue
        elif line.startswith('startTime = '):
            t = datetime.datetime.strptime(line.split()[2], '%H:%M:%S.%f').time()
            event['ms'] = datetime.datetime.combine(day, t, datetime.timezone.utc).timestamp() * 1000
        elif line.startswith('sampledThread = '):
            name = line.split('"')[1]
            event['thread'] = re.sub(r' \(\d+/\d+\)(#\d+)?$', '', name)
        elif re.match(r'[\w$.]+\(.*\)( line: \d+)?', line):
            event['frames'].append(line)
        elif line == '}' and 'ms' in event and not (event['native'] and not computing(event['frames'])):
            for leg, start, end in measured:
                if start <= event['ms'] <= end:
                    threads[leg][event['thread']] += 1
                    layers[leg][layer(event['frames'])] += 1
            event = None
    for leg, start, end in measured:
        total = sum(threads[leg].values()) or 1
        print(f'## {leg}: {end - start} ms, {total} samples')
        for name, n in threads[leg].most_common(8):
            print(f'  {100 * n / total:5.1f}%  {name[:110]}')
        print('  by layer:')
        for name, n in layers[leg].most_common():
            print(f'  {100 * n / total:5.1f}%  {name}')


if __name__ == '__main__':
    main()
