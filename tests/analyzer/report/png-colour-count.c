/* SPDX-License-Identifier: MIT */
/* png-colour-count.c: how many pixels of a PNG have a colour, for shell
 * tests that check screenshots (headless Chromium's, here).
 * Usage: png-colour-count FILE RRGGBB [TOLERANCE(0..255, default 16)]
 * Prints the count, or "distinct N" with RRGGBB "distinct". */
#include <cairo.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  cairo_surface_t *s;
  const guint8 *data;
  int w, h, stride, tol = argc > 3 ? atoi (argv[3]) : 16;
  guint64 hits = 0;
  unsigned rgb = 0;
  gboolean distinct;
  GHashTable *seen;

  if (argc < 3)
    {
      fprintf (stderr, "usage: png-colour-count FILE RRGGBB|distinct [TOLERANCE]\n");
      return 2;
    }
  distinct = g_str_equal (argv[2], "distinct");
  if (!distinct && sscanf (argv[2], "%6x", &rgb) != 1)
    return 2;
  s = cairo_image_surface_create_from_png (argv[1]);
  if (cairo_surface_status (s) != CAIRO_STATUS_SUCCESS)
    {
      fprintf (stderr, "png-colour-count: %s: %s\n", argv[1], cairo_status_to_string (cairo_surface_status (s)));
      return 2;
    }
  data = cairo_image_surface_get_data (s);
  w = cairo_image_surface_get_width (s);
  h = cairo_image_surface_get_height (s);
  stride = cairo_image_surface_get_stride (s);
  seen = g_hash_table_new (NULL, NULL);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        guint32 p = *(const guint32 *) (data + y * stride + x * 4);
        int r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;

        if (distinct)
          g_hash_table_add (seen, GUINT_TO_POINTER (p & 0xffffff));
        else if (abs (r - (int) (rgb >> 16)) <= tol && abs (g - (int) ((rgb >> 8) & 0xff)) <= tol
                 && abs (b - (int) (rgb & 0xff)) <= tol)
          hits++;
      }
  if (distinct)
    printf ("%u\n", g_hash_table_size (seen));
  else
    printf ("%" G_GUINT64_FORMAT "\n", hits);
  g_hash_table_unref (seen);
  cairo_surface_destroy (s);
  return 0;
}
