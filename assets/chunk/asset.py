"""chunk: the stage's Dagster asset, made from its declaration and its loop over shards (``work``)."""

from assets.chunk.declaration import STAGE
from assets.chunk.work import chunk_shards
from assets.factory import shard_stage

chunk = shard_stage(STAGE)(chunk_shards)
