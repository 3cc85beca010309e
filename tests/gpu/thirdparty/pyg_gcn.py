"""PyTorch Geometric: graph classification with GCNConv layers and
global_mean_pool on synthetic random graphs, batched by PyG's own
DataLoader (torch_geometric.loader.DataLoader, which collates Data objects
into a Batch) with pin_memory=True, moved with batch.to("cuda",
non_blocking=True), as PyG's examples do."""
import torch
import torch.nn.functional as F

import tp_common as tp


def main():
    p = tp.parser(__doc__, steps=60, warmup=15, batch=128)
    p.add_argument("--nodes", type=int, default=64, help="nodes per graph (about)")
    args = p.parse_args()
    pyg = tp.need("torch_geometric")
    tp.need("torch_geometric.nn")
    tp.need("torch_geometric.loader")
    from torch_geometric.data import Data
    from torch_geometric.loader import DataLoader
    from torch_geometric.nn import GCNConv, global_mean_pool
    import sample_common as sc

    g = torch.Generator().manual_seed(0)
    graphs = []
    for i in range(512):
        n = args.nodes // 2 + int(torch.randint(0, args.nodes, (1,), generator=g))
        e = n * 4
        edge_index = torch.randint(0, n, (2, e), generator=g)
        graphs.append(Data(x=torch.randn(n, 32, generator=g), edge_index=edge_index,
                           y=torch.tensor([i % 10])))
    n_graphs = (args.warmup + args.steps) * args.batch
    ds = [graphs[i % len(graphs)] for i in range(n_graphs)]

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = GCNConv(32, 128)
            self.c2 = GCNConv(128, 128)
            self.c3 = GCNConv(128, 128)
            self.out = torch.nn.Linear(128, 10)

        def forward(self, data):
            x = F.relu(self.c1(data.x, data.edge_index))
            x = F.relu(self.c2(x, data.edge_index))
            x = F.relu(self.c3(x, data.edge_index))
            return self.out(global_mean_pool(x, data.batch))

    model = Net().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(ds, batch_size=args.batch, shuffle=True, num_workers=args.workers, pin_memory=True,
                        persistent_workers=args.workers > 0)
    timer = sc.StepTimer(args.warmup)
    pinned = None
    for batch in loader:
        timer.tick()
        if pinned is None:
            pinned = bool(batch.x.is_pinned())
        batch = batch.to("cuda", non_blocking=True)
        loss = F.cross_entropy(model(batch), batch.y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    timer.report("pyg_gcn", False, f"; torch_geometric {pyg.__version__}; batch pinned: {pinned}; "
                 f"has pin_memory(): {hasattr(batch, 'pin_memory')}")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
