/* SPDX-License-Identifier: MIT */
/* pfprof-cli-help.c: --help texts built from a command's PfprofCliHelp. */
#include "pfprof-config.h"

#include <string.h>

#include "pfprof-cli-help.h"
#include "pfprof-cli.h"

static void
append_section (GString *out, const char *heading, const char *body)
{
  if (body == NULL)
    return;
  if (out->len > 0)
    g_string_append_c (out, '\n');
  g_string_append_printf (out, "%s:\n%s", heading, body);
  if (out->len > 0 && out->str[out->len - 1] != '\n')
    g_string_append_c (out, '\n');
}

void
pfprof_cli_help_append_sections (const PfprofCliHelp *help, GString *out)
{
  g_return_if_fail (help != NULL);
  g_return_if_fail (out != NULL);

  g_autofree char *see_also = g_strdup_printf ("  %s\n", help->see_also);

  append_section (out, "Exit status", help->exit_status);
  append_section (out, "Environment", help->environment);
  append_section (out, "Files", help->files);
  append_section (out, "Examples", help->examples);
  append_section (out, "See also", help->see_also ? see_also : NULL);
}

GOptionContext *
pfprof_cli_help_context_new (const PfprofCliHelp *help)
{
  GOptionContext *ctx;
  g_return_val_if_fail (help != NULL, NULL);

  g_autoptr (GString) sections = g_string_new (NULL);
  g_autofree char *summary = NULL;

  g_return_val_if_fail (help != NULL && help->summary != NULL, NULL);

  ctx = g_option_context_new (help->synopsis);
  summary = help->description ? g_strdup_printf ("%s.\n\n%s", help->summary, help->description)
                              : g_strdup_printf ("%s.", help->summary);
  /* GOptionContext prints the summary and the description with a
   * newline of its own after each. */
  g_strchomp (summary);
  g_option_context_set_summary (ctx, summary);
  pfprof_cli_help_append_sections (help, sections);
  if (sections->len > 0 && sections->str[sections->len - 1] == '\n')
    g_string_truncate (sections, sections->len - 1);
  g_option_context_set_description (ctx, sections->str);
  return ctx;
}

gboolean
pfprof_cli_help_refuse_old_format (const char *command, int argc, char **argv,
                                   const char *const *formats)
{
  g_return_val_if_fail (command != NULL, FALSE);
  g_return_val_if_fail (argv != NULL, FALSE);
  g_return_val_if_fail (formats != NULL, FALSE);

  for (int i = 1; i < argc; i++)
    {
      const char *value = NULL;

      if (strcmp (argv[i], "--") == 0)
        break;
      if (strcmp (argv[i], "-f") == 0 && i + 1 < argc)
        value = argv[i + 1];
      else if (strncmp (argv[i], "-f", 2) == 0 && argv[i][2] != '-' && argv[i][2] != '\0')
        value = argv[i] + 2 + (argv[i][2] == '=');
      if (value != NULL && g_strv_contains (formats, value))
        {
          pfprof_cli_error ("%s: -f is --force now; give the format as --format %s (or -F %s)", command, value,
                            value);
          return FALSE;
        }
    }
  return TRUE;
}
