"""Messages cross the channels-redis layer between separate layer instances."""

import asyncio
import uuid
from contextlib import asynccontextmanager

import pytest
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer
from django.conf import settings

pytestmark = pytest.mark.services


def new_layer():
    """A layer of its own, as another server process or a worker would have."""
    return RedisChannelLayer(**settings.CHANNEL_LAYERS["default"]["CONFIG"])


@asynccontextmanager
async def two_layers():
    """A sender's and a receiver's layer, as two processes have; their pools closed after."""
    sender, receiver = new_layer(), new_layer()
    try:
        yield sender, receiver
    finally:
        await sender.close_pools()
        await receiver.close_pools()


def test_the_default_layer_is_redis():
    assert isinstance(get_channel_layer(), RedisChannelLayer)


def test_a_message_sent_by_one_layer_is_received_by_another():
    async def scenario():
        async with two_layers() as (sender, receiver):
            channel = await receiver.new_channel()
            nonce = uuid.uuid4().hex
            await sender.send(channel, {"type": "test.message", "nonce": nonce})
            return nonce, await asyncio.wait_for(receiver.receive(channel), 10)

    nonce, message = asyncio.run(scenario())
    assert message == {"type": "test.message", "nonce": nonce}


def test_a_group_message_reaches_a_member_on_another_layer():
    group = f"test-{uuid.uuid4().hex}"

    async def scenario():
        async with two_layers() as (sender, receiver):
            channel = await receiver.new_channel()
            await receiver.group_add(group, channel)
            await sender.group_send(group, {"type": "run.progress", "cycle": 3})
            message = await asyncio.wait_for(receiver.receive(channel), 10)
            await receiver.group_discard(group, channel)
            return message

    assert asyncio.run(scenario()) == {"type": "run.progress", "cycle": 3}


def kill_redis_clients() -> None:
    """What a Redis restart does to a server process's pooled connections: drops them."""
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        client.client_kill_filter(_type="normal", skipme=True)
    finally:
        client.close()


def test_the_layer_works_at_once_after_redis_drops_its_connections():
    group = f"test-{uuid.uuid4().hex}"

    async def scenario():
        async with two_layers() as (sender, receiver):
            channel = await receiver.new_channel()
            await receiver.group_add(group, channel)
            await sender.group_send(group, {"type": "before"})
            assert (await asyncio.wait_for(receiver.receive(channel), 10))["type"] == "before"
            kill_redis_clients()
            # The first use of each pooled connection after the drop must not fail.
            other = await receiver.new_channel()
            await receiver.group_add(group, other)
            await sender.group_send(group, {"type": "after"})
            return await asyncio.wait_for(receiver.receive(other), 10)

    assert asyncio.run(scenario()) == {"type": "after"}
