package dev.squall.engine.scan;

import dev.squall.engine.EngineException;
import dev.squall.proto.v1.ErrorCode;

/** The errors of the Parquet scan, with their wire error codes. */
final class ParquetScanException {
  private ParquetScanException() {}

  /** A data file whose bytes do not follow the Parquet format. */
  static EngineException corrupt(String message) {
    return new EngineException(ErrorCode.USER_ERROR, "corrupt Parquet data: " + message);
  }

  /** A data file that is valid Parquet but uses something this scan does not read. */
  static EngineException unsupported(String message) {
    return new EngineException(ErrorCode.USER_ERROR, "unsupported Parquet data: " + message);
  }

  /** Reading a data or delete file failed (storage error). */
  static EngineException io(String file, Throwable cause) {
    return new EngineException(ErrorCode.EXTERNAL, "reading " + file + " failed: " + cause.getMessage(), cause);
  }
}
