package dev.squall.cli.local;

import java.util.Map;

/** TPC-H at scale factor 0.1 (lineitem 600,572 rows in 31 data files). */
class TpchSf01EndToEndTest extends TpchEndToEndTest {
  @Override
  double scaleFactor() {
    return 0.1;
  }

  @Override
  long rowsPerFile() {
    return 20_000;
  }

  @Override
  Map<String, String> properties() {
    return Map.of("default_schema", "tpch", "broadcast_threshold_bytes", "1", "target_split_size_bytes", "1048576", "target_bytes_per_task", "1048576");
  }
}
