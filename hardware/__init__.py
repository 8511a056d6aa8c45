"""Bytes ⇄ events: the wire protocol, station links over pyserial, simulated stations.
Imports only the standard library, pyserial and gpiozero (never controller or display)."""
