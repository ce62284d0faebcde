"""Open-loop training data of LANTERN (App. A "Expert rollout and supervision", App. B): route sampling
disjoint from the frozen suite, the privileged collection expert, 4-Hz sample extraction, open-loop
acceptance, sharded Parquet writing and the dataset card. No rclpy: collection steps the embedded world
directly (docs/dataset.md)."""
