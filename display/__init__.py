"""pygame-ce views of the table's public state. Draws snapshots; never changes them."""
