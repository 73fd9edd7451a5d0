"""Everything that touches the input files: inventory, kind sniffing and the readers per content kind.

Plain Python: nothing here imports Dagster, so every reader can be run and tested on its own
(``assay check FILE`` does exactly that). Importing the package first keeps the process off the network
(``readers/core/offline.py``).
"""

from readers.core.offline import keep_offline

keep_offline()
