"""Training on several processes (``torchrun``): who am I, my shard of a batch, the all-reduces.

``fit`` needs no other call: started by ``torchrun --nproc_per_node N script.py`` (which sets
``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``MASTER_ADDR``/``PORT``), it joins the process group
itself — gloo on a CPU, NCCL on GPUs — and then

* every rank draws the same *global* batch of ``batch_size`` examples (same seed, same order) and
  trains on its own contiguous shard of it;
* the loss module is wrapped in ``DistributedDataParallel``, which all-reduces the gradients
  during ``backward``; each rank's loss is weighted by its shard's share of the batch, so the
  averaged gradient is the gradient of the whole batch's mean loss, as in one process;
* only rank 0 evaluates, shows progress and writes checkpoints and models; every rank resumes
  from the same checkpoint, which holds every rank's random state.

With in-batch negatives (MNRL) a shard sees only its own negatives: the same global batch on N
processes is then N smaller contrastive problems, not one. The classification, regression and
triplet objectives are per-example, and N processes match one process on the same global batch.
"""
from __future__ import annotations

import os
from datetime import timedelta

import torch
import torch.distributed as dist


def launched() -> bool:
    """True when this process was started as one of several (``WORLD_SIZE`` > 1) or already joined a group."""
    return (dist.is_available() and dist.is_initialized()) or int(os.environ.get("WORLD_SIZE", "1")) > 1


def setup(device: torch.device) -> tuple[int, int]:
    """Join the process group if launched by ``torchrun`` (and not yet joined); ``(rank, world_size)``."""
    if not launched():
        return 0, 1
    if not dist.is_initialized():
        missing = [k for k in ("RANK", "MASTER_ADDR", "MASTER_PORT") if k not in os.environ]
        if missing:
            raise RuntimeError(f"WORLD_SIZE={os.environ['WORLD_SIZE']} but {', '.join(missing)} not set: "
                               "start the script with torchrun (e.g. torchrun --nproc_per_node 2 train.py)")
        backend = "nccl" if device.type == "cuda" else "gloo"
        if device.type == "cuda":
            _check_own_gpu(device)
            torch.cuda.set_device(device)
        dist.init_process_group(backend, timeout=timedelta(minutes=30))
    return dist.get_rank(), dist.get_world_size()


def _check_own_gpu(device: torch.device) -> None:
    """Each process of a node trains on its own GPU, ``cuda:LOCAL_RANK`` (what ``pick_device`` gives)."""
    local = int(os.environ.get("LOCAL_RANK", os.environ.get("RANK", "0")))
    if device.index is not None and device.index != local:
        raise RuntimeError(f"process with LOCAL_RANK={local} has its model on {device}; under torchrun each "
                           f"process needs its own GPU: build the encoder with device=None or 'cuda:{local}'")


def rank() -> int:
    """This process's rank: the group's, else torchrun's ``RANK`` (a process that never joined), else 0."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank()
    return int(os.environ.get("RANK", "0"))


def world_size() -> int:
    """How many processes are in the joined group (1 when none was joined)."""
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def shard(ids, rank: int, world: int) -> list:
    """Rank ``rank``'s contiguous share of one global batch (sizes differ by at most one)."""
    ids = list(ids)
    base, extra = divmod(len(ids), world)
    start = rank * base + min(rank, extra)
    return ids[start:start + base + (rank < extra)]


def global_loss(value: torch.Tensor, share: float, world: int) -> float:
    """The whole batch's mean loss: the sum over ranks of each shard's mean × its share of the batch."""
    if world == 1:
        return float(value.detach())
    total = (value.detach().float() * share).reshape(1).clone()
    dist.all_reduce(total)
    return float(total)


def gather_to_main(obj, world: int) -> list | None:
    """Every rank's ``obj`` as a list on rank 0 (``None`` on the others); ``[obj]`` for one process."""
    if world == 1:
        return [obj]
    out = [None] * world if dist.get_rank() == 0 else None
    dist.gather_object(obj, out, dst=0)
    return out


def barrier(world: int) -> None:
    if world > 1:
        dist.barrier()

