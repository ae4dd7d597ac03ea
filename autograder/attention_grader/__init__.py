"""The teacher's tooling: release -> collect -> grade -> feedback -> report, as small named steps."""
