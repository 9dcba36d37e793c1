"""Online scheduling of rigid jobs on a homogeneous cluster (FCFS, EASY, your own policies)."""

from .policies import BUILTIN_POLICIES, BatchState, Policy
from .simulator import SimulationResult, estimates_of, simulate

__all__ = ["BUILTIN_POLICIES", "BatchState", "Policy", "SimulationResult", "estimates_of", "simulate"]
