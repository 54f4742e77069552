package dev.squall.engine.testing;

import java.io.File;
import org.apache.iceberg.Files;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/** A FileIO over local files (Iceberg's {@link Files#localInput}), for tests. */
public final class LocalFileIO implements FileIO {
  @Override
  public InputFile newInputFile(String path) {
    return Files.localInput(strip(path));
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return Files.localOutput(strip(path));
  }

  @Override
  public void deleteFile(String path) {
    new File(strip(path)).delete();
  }

  private static String strip(String path) {
    return path.startsWith("file:") ? path.substring("file:".length()) : path;
  }
}
