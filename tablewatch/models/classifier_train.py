"""Train the corner-index classifier (a small CNN, random init) on crops of the by-source splits; export ONNX.

Needs torch (the ``train`` extra). The crops are cut once (``tablewatch.models.crops``); augmentation
here is what a table adds: any rotation (cards lie every way), scale and shift (detector boxes are not
exact), brightness and contrast, blur; and, with ``dark_share``, a white-faced index recoloured as a black
deck prints it (black paper, gold red suits, silver black suits), the kind of deck the photos hold few of.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from tablewatch.models import schedule
from tablewatch.models.crops import extract_crops, extract_rendered_crops, face_up_names
from tablewatch.models.dataset import read_class_names
from tablewatch.vision.classifier import CROP_HW

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class ClassifierResult:
    pt: Path
    onnx: Path
    epochs: int
    seconds: float
    val_accuracy: float
    test_accuracy: float


BASE_LR = 2e-3
GOLD, SILVER = np.array([55.0, 165.0, 215.0]), np.array([205.0, 205.0, 200.0])  # BGR inks of a black deck


def rank_and_suit(name: str) -> tuple[str, str]:
    """``"10H"`` -> (``"10"``, ``"H"``); a joker is rank ``JOKER`` with its colour as suit."""
    if name.endswith("JOKER"):
        return "JOKER", name.split()[0]
    return name[:-1], name[-1]


def build_net(classes: list[str]) -> torch.nn.Module:
    """A small CNN with two heads, rank and suit, whose log-probabilities add up to each card's logit.

    Why factorised: each rank is learned from every suit's examples and each suit from every rank's, so
    ~80 photos per card are ~300 per rank and ~1,000 per suit; a card the training set barely shows still
    gets its rank and suit right. The exported graph outputs the per-card logits, as a flat classifier.
    """
    import torch
    from torch import nn

    def block(c_in: int, c_out: int) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True),
            nn.Conv2d(c_out, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True),
        )

    parts = [rank_and_suit(name) for name in classes]
    ranks, suits = sorted({r for r, _ in parts}), sorted({s for _, s in parts})

    class RankSuitNet(nn.Module):  # type: ignore[misc, unused-ignore]  # torch is Any where it is not installed
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                block(3, 24), nn.MaxPool2d(2), block(24, 48), nn.MaxPool2d(2), block(48, 96), nn.MaxPool2d(2),
                block(96, 160), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
            )
            self.rank_head, self.suit_head = nn.Linear(160, len(ranks)), nn.Linear(160, len(suits))
            self.register_buffer("rank_of", torch.tensor([ranks.index(r) for r, _ in parts]))
            self.register_buffer("suit_of", torch.tensor([suits.index(s) for _, s in parts]))

        def heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            features = self.features(x)
            return self.rank_head(features), self.suit_head(features)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            rank, suit = self.heads(x)
            return rank.log_softmax(1)[:, self.rank_of] + suit.log_softmax(1)[:, self.suit_of]

    return RankSuitNet()


def augment(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    h, w = crop.shape[:2]
    angle = 90 * int(rng.integers(4)) + rng.uniform(-20, 20)  # cards lie every way; 180° is the other corner
    scale = rng.uniform(0.85, 1.15)
    matrix = cv2.getRotationMatrix2D((w / 2 + rng.uniform(-3, 3), h / 2 + rng.uniform(-3, 3)), angle, scale)
    out = cv2.warpAffine(crop, matrix, (w, h), borderMode=cv2.BORDER_REPLICATE)
    out = out.astype(np.float32) * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (3, 3), 0)
    return np.clip(out, 0, 255).astype(np.uint8)


def as_black_deck(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A white-faced index crop recoloured as a black deck: paper → near black, red ink → gold, black → silver.

    Each pixel is split into paper, red ink and dark ink by its redness and its darkness against the
    crop's paper (its bright pixels), and the three weights mix the black deck's colours.
    """
    bgr = crop.astype(np.float32)
    b, g, r = bgr[..., 0], bgr[..., 1], bgr[..., 2]
    lightness = bgr.max(axis=2)
    paper = max(float(np.percentile(lightness, 90)), 1.0)
    red = np.clip((r - (b + g) / 2 - 25) / 70, 0, 1)
    dark = np.clip((1 - lightness / paper - 0.15) / 0.45, 0, 1) * (1 - red)
    black = rng.uniform(10, 45) + rng.normal(0, 4, crop.shape[:2])
    gold, silver = GOLD * rng.uniform(0.75, 1.1), SILVER * rng.uniform(0.75, 1.1)
    out = ((1 - red - dark)[..., None] * black[..., None] + red[..., None] * gold + dark[..., None] * silver)
    recoloured: npt.NDArray[np.uint8] = np.clip(out, 0, 255).astype(np.uint8)
    return recoloured


def is_dark_faced(crop: np.ndarray) -> bool:
    """An index printed on dark paper already (the black deck's own crops are not recoloured)."""
    return float(np.median(crop.max(axis=2))) < 140


def to_tensor(crops: np.ndarray) -> torch.Tensor:
    import torch

    return torch.from_numpy(np.ascontiguousarray(crops[:, :, :, ::-1].transpose(0, 3, 1, 2))).float() / 255.0


def accuracy(net: torch.nn.Module, crops: np.ndarray, labels: np.ndarray) -> float:
    import torch

    net.eval()
    with torch.no_grad():
        predicted = torch.cat([net(to_tensor(crops[i : i + 256])).argmax(1) for i in range(0, len(crops), 256)])
    return float((predicted.numpy() == labels).mean()) if len(labels) else float("nan")


def train_classifier(prepared: Path, out_dir: Path, *, epochs: int = 30, batch: int = 64, seed: int = 0,
                     minutes: float | None = None, rendered: list[Path] | None = None,
                     real: bool = True, init: Path | None = None, dark_share: float = 0.0) -> ClassifierResult:
    """Train on ``prepared/train`` crops, keep the best ``val`` epoch, report ``test`` accuracy.

    The learning rate follows a cosine from ``BASE_LR`` to 0 over ``epochs``, or over ``minutes`` when that
    comes first (so a run fitted to the time still ends annealed); ``init`` starts from an earlier
    ``best.pt`` of ours.

    ``rendered``: ``tablewatch sim dataset`` folders whose index crops join the training set (with
    ``real=False`` they are the whole training set: how well renders alone teach the real cards). Val and
    test are always the real held-out sources. ``dark_share``: the share of white-faced crops recoloured
    as a black deck each time they are drawn (``as_black_deck``).
    """
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    names = read_class_names(prepared)
    classes = face_up_names(names)
    train_x, train_y, is_rendered = training_crops(prepared, names, rendered or [], real=real, seed=seed)
    val_x, val_y = extract_crops(prepared / "val", names)
    test_x, test_y = extract_crops(prepared / "test", names)
    net = build_net(classes)
    if init is not None:
        net.load_state_dict(torch.load(init))
    optimizer = torch.optim.AdamW(net.parameters(), lr=BASE_LR, weight_decay=1e-4)
    steps, step = epochs * (len(train_x) // batch + 1), 0
    loss_fn = torch.nn.CrossEntropyLoss()
    out_dir.mkdir(parents=True, exist_ok=True)
    best, best_path, started, done = -1.0, out_dir / "best.pt", time.time(), 0
    for epoch in range(epochs):
        progress = schedule.progress(step, steps, time.time() - started, minutes)
        if progress >= 1:
            break
        net.train()
        order = rng.permutation(len(train_x))
        losses = []
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            x = to_tensor(np.stack([augment(_drawn(train_x[i], is_rendered[i], dark_share, rng), rng) for i in idx]))
            rank, suit = net.heads(x)
            target = torch.from_numpy(train_y[idx])
            loss = loss_fn(rank, net.rank_of[target]) + loss_fn(suit, net.suit_of[target])
            optimizer.zero_grad()
            loss.backward()
            for group in optimizer.param_groups:
                group["lr"] = schedule.cosine_rate(BASE_LR, progress)
            optimizer.step()
            step += 1
            progress = schedule.progress(step, steps, time.time() - started, minutes)
            losses.append(loss.item())
            if len(losses) % 10 == 0:
                print(f"  step {len(losses)} loss {np.mean(losses[-10:]):.3f}", flush=True)
        done = epoch + 1
        val_acc = accuracy(net, val_x, val_y)
        print(f"epoch {done}/{epochs} loss {np.mean(losses):.3f} val accuracy {val_acc:.4f} "
              f"{time.time() - started:.0f} s", flush=True)
        if val_acc > best:
            best = val_acc
            torch.save(net.state_dict(), best_path)
    net.load_state_dict(torch.load(best_path))
    test_acc = accuracy(net, test_x, test_y)
    onnx = export_classifier(net, classes, out_dir / f"cards-index-cls-{CROP_HW[0]}.onnx")
    (out_dir / "metrics.json").write_text(json.dumps({"val_accuracy": best, "test_accuracy": test_acc, "epochs": done,
                                                      "train_crops": len(train_x), "test_crops": len(test_x)}))
    return ClassifierResult(best_path, onnx, done, time.time() - started, best, test_acc)


def _drawn(crop: np.ndarray, rendered: bool, dark_share: float, rng: np.random.Generator) -> np.ndarray:
    """A training crop as drawn for a batch: a render given a photograph's look, some recoloured as a black deck."""
    if rendered:
        crop = photo_look(crop, rng)
    if dark_share and rng.random() < dark_share and not is_dark_faced(crop):
        return as_black_deck(crop, rng)
    return crop


def photo_look(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A rendered index as a phone or webcam photographs one: paper grey and tinted (white balance and
    exposure), lower contrast, soft focus, sensor noise and JPEG; the renders are clean and bright."""
    out = crop.astype(np.float32) * rng.uniform((0.8, 0.85, 0.85), (0.95, 1.0, 1.05)) * rng.uniform(0.7, 1.0)
    mean = out.mean()
    out = mean + (out - mean) * rng.uniform(0.75, 1.0)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 0.6))
    out = out + rng.normal(0, rng.uniform(1.5, 5), out.shape)
    ok, jpeg = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY,
                                                                            int(rng.integers(35, 85))])
    photo = cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else None
    return photo if photo is not None else np.clip(out, 0, 255).astype(np.uint8)


def training_crops(prepared: Path, names: list[str], rendered: list[Path], *, real: bool,
                   seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops, their class ids, and whether each is a render (the rest are photographs)."""
    parts = [extract_crops(prepared / "train", names, seed=seed)] if real else []
    photographed = len(parts[0][1]) if real else 0  # the photographs come first
    parts += [extract_rendered_crops(folder, face_up_names(names), seed=seed) for folder in rendered]
    if not parts or not sum(len(y) for _, y in parts):
        raise ValueError("no training crops: give the real split, rendered datasets, or both.")
    print("training crops: " + ", ".join(str(len(y)) for _, y in parts), flush=True)
    labels = np.concatenate([y for _, y in parts])
    return np.concatenate([x for x, _ in parts]), labels, np.arange(len(labels)) >= photographed


def export_classifier(net: torch.nn.Module, classes: list[str], path: Path) -> Path:
    import onnx
    import torch

    net.eval()
    dummy = torch.zeros(1, 3, *CROP_HW)
    torch.onnx.export(net, dummy, str(path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    model = onnx.load(str(path))
    entry = model.metadata_props.add()
    entry.key, entry.value = "names", repr(classes)
    onnx.save(model, str(path))
    return path


def main() -> None:
    """``python -m tablewatch.models.classifier_train`` (train venv): prepared split in, ONNX out."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--prepared", type=Path, default=Path("out/cards-real"))
    parser.add_argument("--out", type=Path, default=Path("runs/cards-index-cls"))
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--rendered", type=Path, action="append", default=[],
                        help="a 'tablewatch sim dataset' folder whose index crops join training (repeatable)")
    parser.add_argument("--no-real", action="store_true", help="train on the rendered crops only")
    parser.add_argument("--init", type=Path, default=None, help="start from this best.pt of an earlier run")
    parser.add_argument("--dark-share", type=float, default=0.0,
                        help="share of white-faced crops recoloured as a black deck when drawn (0..1)")
    args = parser.parse_args()
    print(train_classifier(args.prepared, args.out, epochs=args.epochs, minutes=args.minutes,
                           rendered=args.rendered, real=not args.no_real, init=args.init,
                           dark_share=args.dark_share))


if __name__ == "__main__":
    main()
