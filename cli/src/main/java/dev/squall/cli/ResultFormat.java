package dev.squall.cli;

/** How {@code squall query} prints an answer (option values are case-insensitive). */
enum ResultFormat {
  TABLE, CSV, JSON, ARROW
}
