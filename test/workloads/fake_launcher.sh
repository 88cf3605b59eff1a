#!/bin/sh
# SPDX-License-Identifier: MIT
# fake_launcher.sh KIND N PROGRAM [ARGS...] - start N copies of PROGRAM the
# way a job launcher does, with each one's rank in the environment, wait
# for all of them, exit 1 if any failed:
#   torchrun  RANK, LOCAL_RANK, WORLD_SIZE
#   mpirun    OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
# It makes no CUDA call itself, like torchrun and mpirun.
kind=$1 n=$2
shift 2
pids=
i=0
while [ "$i" -lt "$n" ]; do
	case $kind in
	torchrun) RANK=$i LOCAL_RANK=$i WORLD_SIZE=$n "$@" & ;;
	mpirun) OMPI_COMM_WORLD_RANK=$i OMPI_COMM_WORLD_SIZE=$n "$@" & ;;
	*) echo "fake_launcher.sh: unknown kind '$kind'" >&2; exit 2 ;;
	esac
	pids="$pids $!"
	i=$((i + 1))
done
rc=0
for p in $pids; do
	wait "$p" || rc=1
done
exit $rc
