"""A three-node JetStream cluster on 127.0.0.1: the bucket has three replicas, and sync goes on when the
node a host was connected to dies."""

from __future__ import annotations

from sync_support import create_bucket, host_config, host_store, row, states, wait_until

from lunavect.core.model import State
from lunavect.listing.sessions import own_ids
from lunavect.sync.client import SyncClient


def test_sync_continues_when_one_cluster_node_dies(tmp_path, nats_cluster):
    create_bucket(nats_cluster.urls, replicas=3)
    first, second = nats_cluster.urls[0], nats_cluster.urls[1]
    alpha_db, beta_db = host_store(tmp_path, "alpha"), host_store(tmp_path, "beta")
    # Alpha knows the first node first, beta the second: killing the first moves alpha to another node.
    alpha = SyncClient(
        host_config(tmp_path, "alpha", "pw-alpha", nats_cluster.urls), "m-alpha", alpha_db, own_ids=own_ids
    )
    beta = SyncClient(
        host_config(tmp_path, "beta", "pw-beta", [second, first, nats_cluster.urls[2]]),
        "m-beta",
        beta_db,
        own_ids=own_ids,
    )
    alpha.start()
    beta.start()
    try:
        alpha.offer({"claude:s1": row("s1", "alpha")})
        wait_until(lambda: states(beta_db) == {"claude:s1": ("alpha", "working")}, timeout=40, what="s1 on beta")
        nats_cluster.nodes[0].kill()
        alpha.offer({"claude:s1": row("s1", "alpha", State.READY), "claude:s2": row("s2", "alpha")})
        want = {"claude:s1": ("alpha", "ready"), "claude:s2": ("alpha", "working")}
        wait_until(lambda: states(beta_db) == want, timeout=60, what="the change after the node died")
        beta.offer({"claude:b1": row("b1", "beta", State.INPUT)})
        wait_until(lambda: states(alpha_db) == {"claude:b1": ("beta", "input")}, timeout=60, what="b1 on alpha")
    finally:
        alpha.stop()
        beta.stop()
