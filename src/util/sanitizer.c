/* sanitizer.c — in sanitizer builds only: leak suppressions that travel
 * with the library.  Ranks started on other hosts (mpiexec --launcher ssh,
 * srun) do not see the LSAN_OPTIONS of the test driver, so the list of
 * libraries whose own allocations outlive the job lives here.  These are
 * third-party allocations kept until exit (libfabric providers' connection
 * state, OpenPMIx and libpmi2 globals), never fabmpi's. */
#if defined(__SANITIZE_ADDRESS__)
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libfabric.so\nleak:libpmix.so\nleak:libpmi2.so\n";
}
#else
/* ISO C forbids an empty translation unit. */
typedef int fm_sanitizer_unused;
#endif
