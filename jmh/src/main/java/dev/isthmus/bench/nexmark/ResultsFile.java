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
 * are complete and a run resumes by skipping them.
 */
record ResultsFile(Path path) {
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
        Files.writeString(path, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
