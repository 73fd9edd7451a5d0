"""sanitize: the stage's Dagster asset, made from its declaration and its loop over shards (``work``)."""

from assets.factory import shard_stage
from assets.sanitize.declaration import STAGE
from assets.sanitize.work import sanitize_shards

sanitize = shard_stage(STAGE)(sanitize_shards)
