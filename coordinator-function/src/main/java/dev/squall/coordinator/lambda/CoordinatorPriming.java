package dev.squall.coordinator.lambda;

import dev.squall.coordinator.http.HttpApi;
import dev.squall.engine.warmup.Warmup;
import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannerSettings;
import dev.squall.shuffle.s3.S3Warmup;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SnapStart priming of the coordinator: before the snapshot ({@link #beforeCheckpoint}), plans a
 * query with Calcite over an in-memory Iceberg catalog, answers a health request through the HTTP
 * layer, and runs Arrow, Iceberg and the S3 client pipeline, so that a restored sandbox plans its
 * first query without loading those classes. The deployment's catalog, job store and clients are
 * not built here (they are built on the first request, after restore): no credential or secret is
 * read before the snapshot. A failed warm-up is logged and ignored.
 */
public final class CoordinatorPriming implements Resource {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorPriming.class);
  private static final String HEALTH_EVENT = "{\"version\":\"2.0\",\"rawPath\":\"/v1/health\","
      + "\"requestContext\":{\"http\":{\"method\":\"GET\",\"path\":\"/v1/health\"}}}";
  /** CRaC keeps resources weakly: this reference keeps the registered one alive. */
  private static CoordinatorPriming registered;

  /** Registers the priming with CRaC's global context once; a no-op on a JVM without CRaC. */
  public static synchronized void register() {
    if (registered == null) {
      registered = new CoordinatorPriming();
      Core.getGlobalContext().register(registered);
    }
  }

  /**
   * The warm-up itself.
   *
   * @param api the HTTP layer the handler serves with
   * @return how long it took
   */
  public static Duration prime(HttpApi api) {
    long start = System.nanoTime();
    try {
      Warmup.arrowAndIceberg(3);
      api.handle(HEALTH_EVENT.getBytes(StandardCharsets.UTF_8));
      try (InMemoryCatalog catalog = new InMemoryCatalog()) {
        catalog.initialize("warmup", Map.of(CatalogProperties.WAREHOUSE_LOCATION, "mem://warmup"));
        catalog.createNamespace(Namespace.of("warmup"));
        catalog.createTable(TableIdentifier.of("warmup", "t"), new Schema(
            Types.NestedField.required(1, "k", Types.LongType.get()),
            Types.NestedField.optional(2, "v", Types.StringType.get())));
        new DistributedPlanner(catalog).plan(
            "select v, count(*) as n, sum(k) as s from warmup.t where k > 1 group by v order by n desc limit 10",
            PlannerSettings.defaults());
      }
      S3Warmup.getObject(2);
    } catch (Exception | LinkageError e) {
      LOG.warn("coordinator priming failed; the function runs unprimed: {}", e.toString());
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  @Override
  public void beforeCheckpoint(Context<? extends Resource> context) {
    LOG.info("coordinator primed in {} ms", prime(new HttpApi(null)).toMillis());
  }

  @Override
  public void afterRestore(Context<? extends Resource> context) {
    // Nothing to refresh: priming keeps no connection, credential or clock reading.
  }
}
