import java.io.IOException;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Build check of a Lambda deployment package: fails (exit 1) when the zip unzips to more than the
 * limit (Lambda allows 250 MB, 262,144,000 bytes, for a function and its layers unzipped), or when
 * it holds an entry whose path contains a forbidden fragment. Run as a single-file program:
 * {@code java FunctionZipSize.java target/function.zip 262144000 [forbidden ...]}.
 */
public final class FunctionZipSize {
  public static void main(String[] args) throws IOException {
    Path zip = Path.of(args[0]);
    long limit = Long.parseLong(args[1]);
    long total = 0;
    int entries = 0;
    try (ZipFile file = new ZipFile(zip.toFile())) {
      for (ZipEntry e : java.util.Collections.list(file.entries())) {
        entries++;
        // Sizes come from the central directory; an unknown size counts by reading the entry.
        total += e.getSize() >= 0 ? e.getSize() : file.getInputStream(e).transferTo(java.io.OutputStream.nullOutputStream());
        for (int i = 2; i < args.length; i++) {
          if (e.getName().contains(args[i])) {
            System.err.println(zip + " holds " + e.getName() + ", which this function must not carry (" + args[i] + ")");
            System.exit(1);
          }
        }
      }
    }
    System.out.printf("%s: %d entries, %.1f MB unzipped (limit %.1f MB)%n", zip, entries, total / 1e6, limit / 1e6);
    if (total > limit) {
      System.err.printf("%s unzips to %d bytes, over the limit of %d bytes%n", zip, total, limit);
      System.exit(1);
    }
  }
}
