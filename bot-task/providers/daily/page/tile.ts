// The bot's `static` video tile: the image, or a name card, on a canvas redrawn every second so frames keep flowing.
let redraw: ReturnType<typeof setInterval> | undefined;

export async function tileTrack(
  name: string,
  imageDataUrl: string | undefined,
): Promise<{ track: MediaStreamTrack; shows: 'image' | 'name-card' }> {
  const canvas = document.createElement('canvas');
  canvas.width = 640;
  canvas.height = 360;
  const ctx = canvas.getContext('2d')!;
  let image: HTMLImageElement | undefined;
  if (imageDataUrl) {
    image = new Image();
    image.src = imageDataUrl;
    await image.decode().catch(() => {
      image = undefined;
    });
  }
  const draw = () => {
    if (image) {
      const scale = Math.max(canvas.width / image.width, canvas.height / image.height);
      const w = image.width * scale;
      const h = image.height * scale;
      ctx.drawImage(image, (canvas.width - w) / 2, (canvas.height - h) / 2, w, h);
      return;
    }
    ctx.fillStyle = '#1f2937';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = '#2563eb';
    ctx.beginPath();
    ctx.arc(320, 150, 64, 0, Math.PI * 2);
    ctx.fill();
    ctx.fillStyle = '#fff';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.font = 'bold 56px sans-serif';
    ctx.fillText(initials(name), 320, 152);
    ctx.font = '28px sans-serif';
    ctx.fillText(name.length > 36 ? `${name.slice(0, 35)}…` : name, 320, 270);
  };
  draw();
  redraw = setInterval(draw, 1000);
  document.body.append(canvas);
  return { track: canvas.captureStream(5).getVideoTracks()[0]!, shows: image ? 'image' : 'name-card' };
}

export const stopTile = () => clearInterval(redraw);

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return (
    parts.length > 1 ? parts[0]![0]! + parts[parts.length - 1]![0]! : (parts[0] ?? '?').slice(0, 2)
  ).toUpperCase();
}
