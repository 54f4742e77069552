package dev.squall.engine.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** An in-memory DuckDB connection for checking the engine's answers over the fixture's files. */
public final class DuckDbOracle {
  private static Connection connection;

  private DuckDbOracle() {}

  public static synchronized Connection connection() throws SQLException {
    if (connection == null) {
      connection = DriverManager.getConnection("jdbc:duckdb:");
      try (var st = connection.createStatement()) {
        st.execute("SET threads TO 2");
      }
    }
    return connection;
  }
}
