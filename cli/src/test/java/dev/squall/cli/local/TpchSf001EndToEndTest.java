package dev.squall.cli.local;

/** TPC-H at scale factor 0.01 (lineitem 60,175 rows in 61 data files). */
class TpchSf001EndToEndTest extends TpchEndToEndTest {
  @Override
  double scaleFactor() {
    return 0.01;
  }

  @Override
  long rowsPerFile() {
    return 1_000;
  }
}
