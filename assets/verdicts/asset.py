"""verdicts: the stage's Dagster asset, made from its declaration and its loop over shards (``work``)."""

from assets.factory import shard_stage
from assets.verdicts.declaration import STAGE
from assets.verdicts.work import judge_shards

verdicts = shard_stage(STAGE)(judge_shards)
