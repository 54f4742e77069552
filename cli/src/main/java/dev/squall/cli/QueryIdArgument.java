package dev.squall.cli;

import java.io.PrintStream;
import picocli.CommandLine.Parameters;

/** The query id argument of {@code squall status|result|cancel}, checked before any request. */
final class QueryIdArgument {
  @Parameters(arity = "1", paramLabel = "ID", description = "The query id (squall query prints it).")
  String queryId;

  /**
   * @return true when the id is well formed; otherwise prints why to {@code err}
   */
  boolean isValid(PrintStream err) {
    try {
      QueryClient.checkQueryId(queryId);
      return true;
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      return false;
    }
  }
}
