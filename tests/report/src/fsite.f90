! fsite.f90 - LIKWID's Fortran markers: the call site is this program.
program fsite
  use likwid
  integer :: i
  call likwid_markerInit()
  do i = 1, 250
    call likwid_markerStartRegion("f_region") ! SITE: f_region
    call likwid_markerStopRegion("f_region")
  end do
  call likwid_markerClose()
end program fsite
