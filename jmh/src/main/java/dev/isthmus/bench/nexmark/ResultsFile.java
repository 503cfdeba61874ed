package dev.isthmus.bench.nexmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The results CSV: one line per run, appended a whole cell at a time, so that the cells it holds
 * are complete and a run resumes by skipping them. Beside it, {@code <name>-timeline.csv} holds
 * each run's job timeline, one mark per line, for reading where a run's time went.
 */
record ResultsFile(Path path) {
    static final String TIMELINE_HEADER = "mode,query,pair,leg,mark,detail,millis";

    /** The cells already in the file, as "mode query". */
    Set<String> completedCells() throws IOException {
        Set<String> done = new HashSet<>();
        if (Files.exists(path)) {
            for (String line : Files.readAllLines(path)) {
                if (!line.isBlank() && !line.equals(Observation.HEADER)) {
                    String[] fields = line.split(",", 3);
                    done.add(fields[0] + " " + fields[1]);
                }
            }
        }
        return done;
    }

    void append(List<Observation> cell) throws IOException {
        Files.createDirectories(path.toAbsolutePath().getParent());
        StringBuilder text = new StringBuilder();
        if (!Files.exists(path)) {
            text.append(Observation.HEADER).append('\n');
        }
        cell.forEach(o -> text.append(o.csv()).append('\n'));
        StringBuilder marks = new StringBuilder();
        if (!Files.exists(timelinePath())) {
            marks.append(TIMELINE_HEADER).append('\n');
        }
        cell.forEach(o -> o.timelineCsv().forEach(row -> marks.append(row).append('\n')));
        // The results first: a run interrupted between the two loses a cell's timeline, never
        // repeats it when the cell runs again.
        Files.writeString(path, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Files.writeString(timelinePath(), marks, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** The timeline CSV beside the results. */
    Path timelinePath() {
        String name = path.getFileName().toString();
        String stem = name.endsWith(".csv") ? name.substring(0, name.length() - 4) : name;
        return path.resolveSibling(stem + "-timeline.csv");
    }
}
