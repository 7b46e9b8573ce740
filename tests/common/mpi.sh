# mpi.sh - Open MPI on loopback for the tests, one setup for all of them.
# Source it:  . "$(dirname "$0")/../common/mpi.sh"
# then  sbt_mpi NP SECONDS command...   (mpirun as root, oversubscribed,
# shared-memory transport only).  Exits 77 (skipped) without mpirun.
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun: skipped"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1

sbt_mpi() {
	_np=$1 _secs=$2
	shift 2
	timeout "$_secs" mpirun --allow-run-as-root --oversubscribe -np "$_np" "$@"
}
